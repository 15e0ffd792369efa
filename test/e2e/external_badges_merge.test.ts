import t from "tap";
import { apiClient, trpc } from "../support/badges.ts";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { webhookOrganization } from "../support/webhooks.ts";

/**
 * A merge carries the merged-away account's external badges to the surviving account: the
 * survivor's employer then lists them, and a badge both accounts had added stays once.
 */
t.test("external badges follow a merge, once each", async (t) => {
  const services = await startEarnerWebhookServices();
  t.teardown(services.close);
  const { laurel, smtp, receiver } = services;
  const issuer = await startObIssuer(services.ca);
  t.teardown(issuer.close);
  const api = apiClient(laurel);
  const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Employer" });
  await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
  const employee = (
    await api("POST", `/organizations/${org.id}/employees`, org.auth, {
      email: "mia@example.org",
      first_name: "Mia",
      last_name: "M",
      external_id: "MIA",
    })
  ).body.data;

  // `shared` is added on both accounts (on the first it matches no confirmed address yet).
  const shared = issuer.assertion("mia@work.example");
  const workOnly = issuer.assertion("mia@work.example");
  const home = issuer.assertion("mia@example.org");

  const mia = httpEarner(laurel.origin, smtp);
  await mia.signIn("mia@example.org");
  await mia.get("/wallet");
  await mia.post(`/wallet/employers/${employee.id}/accept`);
  await mia.post("/wallet/external_badges", { url: home });
  await mia.post("/wallet/external_badges", { url: shared });

  const work = httpEarner(laurel.origin, smtp);
  await work.signIn("mia@work.example");
  await work.post("/wallet/external_badges", { url: shared });
  await work.post("/wallet/external_badges", { url: workOnly });

  const listed = async () =>
    (await api("GET", `/organizations/${org.id}/employees/${employee.id}/external_badges`, org.auth)).body.data as {
      url: string;
      verification_status: string;
    }[];
  t.same((await listed()).map((b) => b.url).sort(), [home, shared].sort(), "before: the survivor's two");

  await mia.mergeIn("mia@work.example");
  const after = await listed();
  t.same(
    after.map((b) => b.url).sort(),
    [home, shared, workOnly].sort(),
    "after: the merged-away badge joined, the shared one once",
  );
  const wallet = await mia.get("/wallet");
  t.equal(wallet.text.match(/data-external-badge=/g)?.length, 3, "the wallet shows three");
  const rows = (await laurel.db.all("select count(*)::int as n from external_badges")) as {
    n: number;
  }[];
  t.equal(rows[0]?.n, 3, "no copy is left behind on the merged-away account");
});
