import { BitstringStatusList } from "@digitalbazaar/vc-bitstring-status-list";
import t from "tap";
import { basic, type OrganizationWithToken, spawnTwoServers, trpcMutation } from "../support/laurel.ts";
import { fetchCredential, fetchVcJwt } from "../support/ob3.ts";

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

/** Two API processes: a status list cached on B shows a revocation made on A at once. */
t.test("a revocation on A sets the bit in the list B serves, though B had cached it", async (t) => {
  const { a, b, adminToken, close } = await spawnTwoServers();
  t.teardown(close);
  const { organization, authorization_token } = (await trpcMutation(a.adminOrigin, adminToken, "organizations.create", {
    name: "Two Process Lists",
    email: "issuer@example.org",
  })) as OrganizationWithToken;
  const headers = { authorization: basic(authorization_token.token), "content-type": "application/json" };
  const api = `${a.origin}/v1/organizations/${organization.id}`;
  const post = async (path: string, body: object) =>
    (await (await fetch(`${api}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json()) as Doc;
  const template = await post("/badge_templates", { name: "Lists", description: "Cached", state: "active" });
  const issued = await post("/badges", {
    badge_template_id: template.data.id,
    issued_at: "2024-03-01T10:00:00Z",
    issued_to_first_name: "Two",
    issued_to_last_name: "Process",
    recipient_email: "two@example.org",
    suppress_badge_notification_email: true,
  });
  const id = issued.data.id as string;
  await trpcMutation(a.adminOrigin, adminToken, "badges.accept", { badge_id: id });

  const credential = await fetchCredential(`${b.origin}/v1/obi/v3/credentials/${id}`);
  const entry = (credential.payload as Doc).credentialStatus;
  const bit = async () => {
    const list = await fetchVcJwt(`${b.origin}/v1/obi/v3/status_lists/${organization.id}/0`);
    const decoded = await BitstringStatusList.decode({
      encodedList: (list.payload as Doc).credentialSubject.encodedList,
    });
    return decoded.getStatus(Number(entry.statusListIndex));
  };
  t.equal(await bit(), false, "B serves the list, and caches it");
  const revoked = await fetch(`${api}/badges/${id}/revoke`, {
    method: "PUT",
    headers,
    body: JSON.stringify({ reason: "Withdrawn" }),
  });
  t.equal(revoked.status, 200);
  t.equal(await bit(), true, "A's revocation dropped B's copy before it answered");
});
