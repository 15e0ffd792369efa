import t from "tap";
import { basic, type OrganizationWithToken, spawnTwoServers, trpcMutation } from "../support/laurel.ts";
import { fetchCredential } from "../support/ob3.ts";

/**
 * Two API processes: a badge page and its hosted records cached by one disappear from it as soon
 * as the other makes the badge private (the hosted records' broadcast reaches the page too).
 */
t.test("a badge page and its hosted records cached on B are dropped when A makes the badge private", async (t) => {
  const { a, b, adminToken, close } = await spawnTwoServers();
  t.teardown(close);
  const { organization, authorization_token } = (await trpcMutation(a.adminOrigin, adminToken, "organizations.create", {
    name: "Two Process Pages",
    email: "issuer@example.org",
  })) as OrganizationWithToken;
  const headers = { authorization: basic(authorization_token.token), "content-type": "application/json" };
  const api = `${a.origin}/v1/organizations/${organization.id}`;
  const template = (await (
    await fetch(`${api}/badge_templates`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Pages", description: "Cached", state: "active" }),
    })
  ).json()) as { data: { id: string } };
  const issued = (await (
    await fetch(`${api}/badges`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        badge_template_id: template.data.id,
        issued_at: "2024-03-01T10:00:00Z",
        issued_to_first_name: "Two",
        issued_to_last_name: "Process",
        recipient_email: "two@example.org",
        suppress_badge_notification_email: true,
      }),
    })
  ).json()) as { data: { id: string } };
  const id = issued.data.id;
  await trpcMutation(a.adminOrigin, adminToken, "badges.accept", { badge_id: id });

  const page = `${b.origin}/badges/${id}`;
  const first = await fetch(page);
  t.equal(first.status, 200);
  t.equal(first.headers.get("set-cookie"), null, "a visitor's page sets no cookie");
  const body = await first.text();
  t.equal(await (await fetch(page)).text(), body, "the same bytes again (cached)");

  // B's hosted records, rendered and cached there, ETags known to a verifier.
  const records = [`${b.origin}/v1/obi/v2/badge_assertions/${id}`, `${b.origin}/v1/obi/v3/credentials/${id}`];
  const etags: string[] = [];
  for (const url of records) {
    const res = url.includes("/obi/v3/") ? await fetchCredential(url) : await fetch(url);
    if (!("jwt" in res)) await res.arrayBuffer();
    t.equal(res.status, 200, `B serves ${url}`);
    etags.push(res.headers.get("etag") ?? "");
  }

  await trpcMutation(a.adminOrigin, adminToken, "badges.privacy", { badge_id: id, public: false });
  t.equal((await fetch(page)).status, 404, "B no longer shows it");
  for (const [i, url] of records.entries()) {
    t.equal((await fetch(url)).status, 404, `B no longer serves ${url}`);
    const revalidated = await fetch(url, { headers: { "if-none-match": etags[i] ?? "" } });
    t.equal(revalidated.status, 404, "nor answers 304 to a verifier holding its ETag");
  }

  await trpcMutation(a.adminOrigin, adminToken, "badges.privacy", { badge_id: id, public: true });
  for (const url of records) {
    const res = url.includes("/obi/v3/") ? await fetchCredential(url) : await fetch(url);
    t.equal(res.status, 200, `public again: B serves ${url}`);
  }
});
