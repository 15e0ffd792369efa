import t from "tap";
import { Value } from "typebox/value";
import {
  AccountMergedEventDetailSchema,
  ConnectAccessRemovedEventDetailSchema,
  EVENT_TYPES,
  PublicBadgesEventDetailSchema,
} from "../../core/events/mod.ts";
import { apiClient, createTemplate, issueBody } from "../support/badges.ts";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { connectApplication, httpEarner } from "../support/earner_http.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

const USER_KINDS = EVENT_TYPES.filter((k) => k.startsWith("user."));

// biome-ignore lint/suspicious/noExplicitAny: event details of many shapes
type Detail = any;

/**
 * A merge seen by the organizations an earner connected: the merged-away account's grants end
 * (`user.connect_access.removed`, its visible badges `removed`), the organizations connected to the
 * surviving account see those badges `added`, and every one of them gets `user.account_merged`.
 * The earner acts through the pages over HTTP; the events reach the webhook receiver.
 */
t.test("a merge sends per-badge connect events to the organizations of either account", async (t) => {
  const services = await startEarnerWebhookServices();
  t.teardown(services.close);
  const { laurel, smtp, receiver } = services;
  const api = apiClient(laurel);

  const events = [...USER_KINDS];
  const issuer = await webhookOrganization(laurel, { url: receiver.url, events, name: "Issuer" });
  const fixture = {
    id: issuer.id,
    auth: issuer.auth,
    templates: `/organizations/${issuer.id}/badge_templates`,
    badges: `/organizations/${issuer.id}/badges`,
  };
  const issue = async (name: string, email: string): Promise<string> => {
    const template = await createTemplate(laurel, fixture, { name });
    return (await api("POST", fixture.badges, issuer.auth, issueBody(template.id, { recipient_email: email }))).body
      .data.id;
  };
  const moving = await issue("Moves and is seen", "kay@work.example");
  await issue("Moves unseen", "kay@work.example");
  const staying = await issue("Stays", "kay@example.org");

  // Three organizations with a Connect application: one the work account connects to, one the
  // personal account connects to, one both connect to.
  const orgs = {
    sourceOnly: await webhookOrganization(laurel, { url: receiver.url, events, name: "Source only" }),
    destinationOnly: await webhookOrganization(laurel, { url: receiver.url, events, name: "Destination only" }),
    both: await webhookOrganization(laurel, { url: receiver.url, events, name: "Both" }),
  };
  const apps = {
    sourceOnly: await connectApplication(laurel, orgs.sourceOnly.id, orgs.sourceOnly.auth),
    destinationOnly: await connectApplication(laurel, orgs.destinationOnly.id, orgs.destinationOnly.auth),
    both: await connectApplication(laurel, orgs.both.id, orgs.both.auth),
  };
  const me = async (token: string, path = "/me") =>
    fetch(`${laurel.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

  // Accepting first: the merge is the only change the connected organizations are told about.
  const work = httpEarner(laurel.origin, smtp);
  await work.signIn("kay@work.example");
  await work.post(`/badges/${moving}/accept`, { back: "wallet" });
  const sourceToken = (await apps.sourceOnly.connect(work)).access_token;
  await apps.both.connect(work);
  const personal = httpEarner(laurel.origin, smtp);
  await personal.signIn("kay@example.org");
  await personal.post(`/badges/${staying}/accept`, { back: "wallet" });
  const destinationToken = (await apps.destinationOnly.connect(personal)).access_token;
  await apps.both.connect(personal);
  const source = ((await (await me(sourceToken)).json()) as { data: { id: string } }).data.id;
  const destination = ((await (await me(destinationToken)).json()) as { data: { id: string } }).data.id;
  t.not(source, destination);

  await personal.mergeIn("kay@work.example");

  const expected: Record<string, string[]> = {
    [issuer.id]: ["user.account_merged"],
    [orgs.sourceOnly.id]: [
      "user.account_merged",
      `user.public_badges.removed ${source} ${moving}`,
      `user.connect_access.removed ${source}`,
    ],
    [orgs.destinationOnly.id]: ["user.account_merged", `user.public_badges.added ${destination} ${moving}`],
    [orgs.both.id]: [
      "user.account_merged",
      `user.public_badges.removed ${source} ${moving}`,
      `user.connect_access.removed ${source}`,
      `user.public_badges.added ${destination} ${moving}`,
    ],
  };
  const total = Object.values(expected).flat().length;
  await waitFor(`${total} deliveries`, () => receiver.received.length >= total, 15_000);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(
    receiver.received.length,
    total,
    "nothing more: accepting before connecting, the badge that stays and the pending one are silent",
  );
  t.same(receiver.verify([issuer.secret, ...Object.values(orgs).map((o) => o.secret)]), [], "signed");

  const authOf = new Map([issuer, ...Object.values(orgs)].map((o) => [o.id, o.auth]));
  const seen: string[] = [];
  for (const delivery of receiver.received) {
    const org = delivery.json.organization_id;
    const detail: Detail = (await api("GET", `/organizations/${org}/events/${delivery.json.id}`, authOf.get(org) ?? ""))
      .body.data;
    const kind = detail.event_type as string;
    if (kind === "user.account_merged") {
      t.ok(Value.Check(AccountMergedEventDetailSchema, detail), `${kind}: its shape`);
      t.same([detail.source_user_id, detail.destination_user_id], [source, destination]);
      seen.push(`${org} ${kind}`);
    } else if (kind === "user.connect_access.removed") {
      t.ok(Value.Check(ConnectAccessRemovedEventDetailSchema, detail), `${kind}: its shape`);
      seen.push(`${org} ${kind} ${detail.user_id}`);
    } else {
      t.ok(Value.Check(PublicBadgesEventDetailSchema, detail), `${kind}: its shape`);
      t.match(detail.badge, { state: "accepted", public: true }, `${kind}: the badge as the organization saw it`);
      seen.push(`${org} ${kind} ${detail.user_id} ${detail.badge.id}`);
    }
  }
  const wanted = Object.entries(expected).flatMap(([org, kinds]) => kinds.map((k) => `${org} ${k}`));
  t.same(seen.sort(), wanted.sort(), "each organization got what it could see change");

  // The work account's grants ended with it; the personal account's now show the moved badge.
  t.equal((await me(sourceToken, "/me/badges")).status, 401, "the merged-away account's token is refused");
  const badges = (await (await me(destinationToken, "/me/badges")).json()) as { data: Array<{ id: string }> };
  t.same(badges.data.map((b) => b.id).sort(), [moving, staying].sort(), "the surviving account's public badges");
  const listed = await personal.get("/account/connections");
  t.match(listed.text, /Destination only/);
  t.match(listed.text, /Both/);
});
