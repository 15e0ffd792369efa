import t from "tap";
import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { EndorsementEventDetailSchema } from "../../core/endorsements/mod.ts";
import {
  AccountMergedEventDetailSchema,
  BadgeEventDetailSchema,
  BadgeTemplateEventDetailSchema,
  ConnectAccessRemovedEventDetailSchema,
  EmploymentEventDetailSchema,
  EmploymentSchema,
  EVENT_TYPES,
  type EventFamily,
  type EventType,
  eventFamily,
  PendingNotificationEventDetailSchema,
  PublicBadgesEventDetailSchema,
  ReducedEmploymentSchema,
  WebhookSummarySchema,
} from "../../core/events/mod.ts";
import { apiClient, issueBody, trpc } from "../support/badges.ts";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { connectApplication, httpEarner } from "../support/earner_http.ts";
import { basic } from "../support/laurel.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { runTs } from "../support/processes.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * Every kind, as the code declares them (`EVENT_TYPES`), caused by the action that
 * really causes it: the REST API, the earner's pages (over HTTP, as a browser sends them), the
 * Connect consent, and the CLI where nothing else can (an address on an account, not confirmed).
 * Each step must record a new event of its kind; at the end every kind has been read from the
 * events API with its documented shape and delivered, signed, to the organization's receiver.
 */

/**
 * Kinds no action causes yet. The walk fails when this list is not exactly the kinds without a
 * source: a new kind must come with its source, and a built source must leave this list.
 */
const awaitingSource: readonly EventType[] = [];

/** The documented detail of each family: a new family must name its shape here. */
const SHAPES: Record<EventFamily, TSchema> = {
  badge: BadgeEventDetailSchema,
  badge_template: BadgeTemplateEventDetailSchema,
  pending_badge_notification: PendingNotificationEventDetailSchema,
  "user.account_merged": AccountMergedEventDetailSchema,
  "user.connect_access.removed": ConnectAccessRemovedEventDetailSchema,
  "user.public_badges": PublicBadgesEventDetailSchema,
  employment: EmploymentEventDetailSchema,
  endorsement: EndorsementEventDetailSchema,
};

// biome-ignore lint/suspicious/noExplicitAny: event details and REST bodies of many shapes
type Json = any;

const services = await startEarnerWebhookServices();
t.teardown(services.close);
const { laurel, smtp, receiver } = services;
// Another issuer, whose badges the employee adds to their account.
const otherIssuer = await startObIssuer(services.ca);
t.teardown(otherIssuer.close);
const api = apiClient(laurel);
const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Walk" });
await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
const connectApp = await connectApplication(laurel, org.id, org.auth);
const path = (p: string) => `/organizations/${org.id}${p}`;
const ann = httpEarner(laurel.origin, smtp);

/** What the steps leave for the later ones. */
const w = { template: "", employee: "", firstBadge: "", externalUrl: "", externalId: "", endorsement: "" };

const rest = async (method: string, p: string, body?: unknown): Promise<Json> => {
  const res = await api(method, path(p), org.auth, body);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body?.data;
};
/** A badge of the walk's template to `email`; its pending-badge mail only when `notify`. */
const issue = async (email: string, notify = false): Promise<string> =>
  (
    await rest(
      "POST",
      "/badges",
      issueBody(w.template, { recipient_email: email, suppress_badge_notification_email: !notify }),
    )
  ).id;
/** A badge Ann accepted on her wallet (public, as issued): seen by her employer and by Connect. */
const acceptedBadge = async (): Promise<string> => {
  const id = await issue("ann@example.org");
  await ann.post(`/badges/${id}/accept`, { back: "wallet" });
  return id;
};
const makePrivate = (id: string) => ann.post(`/badges/${id}/privacy`, { public: "false", back: "wallet" });

/** One source per kind, in the order the walk runs them (later steps build on earlier ones). */
const SOURCES: Partial<Record<EventType, { how: string; run: () => Promise<unknown> }>> = {
  "badge_template.created": {
    how: "REST POST badge_templates",
    run: async () => {
      w.template = (
        await rest("POST", "/badge_templates", {
          name: "Walking",
          description: "Walks every kind",
          state: "active",
          allow_duplicate_badges: true,
        })
      ).id;
    },
  },
  "badge_template.changed": {
    how: "REST PUT badge_templates/<id>",
    run: () => rest("PUT", `/badge_templates/${w.template}`, { description: "Walks every kind of event" }),
  },
  "badge_template.deleted": {
    how: "REST DELETE badge_templates/<id>",
    run: async () =>
      rest(
        "DELETE",
        `/badge_templates/${(await rest("POST", "/badge_templates", { name: "Gone", description: "Deleted at once" })).id}`,
      ),
  },
  "employment.created": {
    how: "REST POST employees",
    run: async () => {
      w.employee = (
        await rest("POST", "/employees", {
          email: "ann@example.org",
          first_name: "Ann",
          last_name: "Walker",
          external_id: "ANN",
        })
      ).id;
    },
  },
  "employment.updated": {
    how: "REST PUT employees/<id>",
    run: () => rest("PUT", `/employees/${w.employee}`, { department: "Walks" }),
  },
  "employment.deleted": {
    how: "REST DELETE employees/<id>",
    run: async () =>
      rest(
        "DELETE",
        `/employees/${(await rest("POST", "/employees", { email: "zed@example.org", first_name: "Zed", last_name: "Z", external_id: "ZED" })).id}`,
      ),
  },
  "badge.created": {
    how: "REST POST badges",
    run: async () => {
      w.firstBadge = await issue("ann@example.org");
    },
  },
  "pending_badge_notification.no_user.sent": {
    how: "REST POST badges to an address no account has; the mail is accepted by SMTP",
    run: () => issue("ann@example.org", true),
  },
  "employment.user_account.associated": {
    how: "the earner signs in by mailed link with the employee's address and opens the wallet, which asks her",
    run: async () => {
      await ann.signIn("ann@example.org");
      await ann.get("/wallet");
    },
  },
  "employment.connection.pending": {
    how: "REST POST employees of a second record with her address; she opens the wallet",
    run: async () => {
      await rest("POST", "/employees", {
        email: "ann@example.org",
        first_name: "Ann",
        last_name: "W",
        external_id: "ANN-2",
      });
      await ann.get("/wallet");
    },
  },
  "employment.connection.accepted": {
    how: "the earner presses Connect on the wallet",
    run: () => ann.post(`/wallet/employers/${w.employee}/accept`),
  },
  "pending_badge_notification.sent": {
    how: "REST POST badges to a confirmed address of an account",
    run: () => issue("ann@example.org", true),
  },
  "pending_badge_notification.unconfirmed_email.sent": {
    how: "CLI users create (the only way an account holds an unconfirmed address), then REST POST badges",
    run: async () => {
      const env = { LAUREL_URL: laurel.adminOrigin, LAUREL_ADMIN_TOKEN: laurel.server.adminToken };
      const args = ["users", "create", "--email", "una@example.org", "--first-name", "Una", "--last-name", "C"];
      const made = await runTs("apps/cli.ts", args, env);
      if (made.code !== 0) throw new Error(`cli users create: ${made.stderr}`);
      await issue("una@example.org", true);
    },
  },
  "badge.state.changed": {
    how: "the earner accepts a badge on the wallet",
    run: () => ann.post(`/badges/${w.firstBadge}/accept`, { back: "wallet" }),
  },
  "employment.badges.added": {
    how: "the connected employee accepts a public badge",
    run: acceptedBadge,
  },
  "employment.external_badges.added": {
    how: "the connected employee adds another issuer's OB 2.0 assertion by its address on the wallet",
    run: async () => {
      w.externalUrl = otherIssuer.assertion("ann@example.org");
      await ann.post("/wallet/external_badges", { url: w.externalUrl });
      const wallet = await ann.get("/wallet");
      w.externalId = /data-external-badge="([0-9a-f-]{36})"/.exec(wallet.text)?.[1] ?? "";
      if (!wallet.text.includes("Verified")) throw new Error("the added badge was not verified");
    },
  },
  "employment.external_badges.verification_status_changed": {
    how: "its issuer revokes it (410) and the employee presses Check again",
    run: async () => {
      otherIssuer.serve(new URL(w.externalUrl).pathname, { status: 410, json: { revoked: true } });
      await ann.post(`/wallet/external_badges/${w.externalId}/check`);
    },
  },
  "employment.external_badges.removed": {
    how: "the employee presses Remove on the wallet",
    run: () => ann.post(`/wallet/external_badges/${w.externalId}/remove`),
  },
  "user.public_badges.added": {
    how: "the earner allows the organization's application on the consent page, then accepts a public badge",
    run: async () => {
      await connectApp.connect(ann);
      await acceptedBadge();
    },
  },
  "badge.privacy.changed": {
    how: "the earner makes a badge private on the wallet",
    run: () => makePrivate(w.firstBadge),
  },
  "employment.badges.privacy_changed": {
    how: "the connected employee makes a viewable badge private",
    run: async () => makePrivate(await acceptedBadge()),
  },
  "user.public_badges.removed": {
    how: "the connected earner makes a public badge private",
    run: async () => makePrivate(await acceptedBadge()),
  },
  "user.public_badges.changed": {
    how: "REST PUT badge_templates/<id> renaming the template of a badge the connected earner shows",
    run: () => rest("PUT", `/badge_templates/${w.template}`, { name: "Walking far" }),
  },
  "employment.badges.state_changed": {
    how: "REST PUT badges/<id>/revoke of a viewable badge",
    run: async () => rest("PUT", `/badges/${await acceptedBadge()}/revoke`, { reason: "Walked back" }),
  },
  "employment.badges.removed": {
    how: "REST DELETE badges/<id> of a viewable badge",
    run: async () => rest("DELETE", `/badges/${await acceptedBadge()}`),
  },
  "badge.deleted": {
    how: "REST DELETE badges/<id>",
    run: async () => rest("DELETE", `/badges/${await issue("nobody@example.org")}`),
  },
  "user.connect_access.removed": {
    how: "the earner presses Remove access on the connected applications page",
    run: async () => {
      const page = await ann.get("/account/connections");
      const grant = /\/account\/connections\/([0-9a-f-]{36})\/remove/.exec(page.text)?.[1];
      await ann.post(`/account/connections/${grant}/remove`);
    },
  },
  "user.account_merged": {
    how: "the earner merges another account of hers on the account page",
    run: async () => {
      await httpEarner(laurel.origin, smtp).signIn("ann@work.example");
      await ann.mergeIn("ann@work.example");
    },
  },
  "employment.connection.rejected": {
    how: "the earner presses Disconnect on the wallet",
    run: () => ann.post(`/wallet/employers/${w.employee}/disconnect`),
  },
  "employment.user_account.disassociated": {
    how: "REST PUT employees/<id> to an address no account confirmed",
    run: () => rest("PUT", `/employees/${w.employee}`, { email: "ann.walker@example.org" }),
  },
  "endorsement.created": {
    how: "another organization endorses this one over REST (POST organizations/<other>/endorsements)",
    run: async () => {
      const guild = await laurel.createOrganization("Walk Guild");
      const res = await api(
        "POST",
        `/organizations/${guild.organization.id}/endorsements`,
        basic(guild.authorization_token.token),
        { target_kind: "organization", target_id: org.id, comment: "Walks well" },
      );
      if (res.status !== 201) throw new Error(`endorse: ${res.status} ${JSON.stringify(res.body)}`);
      w.endorsement = res.body.data.id;
    },
  },
  "endorsement.state.changed": {
    how: "REST PUT endorsements/<id>/accept",
    run: () => rest("PUT", `/endorsements/${w.endorsement}/accept`),
  },
};

/** The organization's events of one kind, or all, from the events API (every page). */
const listed = async (kind?: EventType): Promise<Json[]> => {
  const out: Json[] = [];
  let url: string | null = `${laurel.baseUrl}${path("/events")}${kind ? `?event_type=${kind}` : ""}`;
  while (url) {
    const page: Json = await api("GET", url, org.auth);
    out.push(...page.body.data);
    url = page.body.metadata.next_page_url;
  }
  // The filter is what lets a step's count stand for its own kind.
  if (kind && out.some((e) => e.event_type !== kind)) throw new Error(`the event_type filter let other kinds in`);
  return out;
};

t.test("the kinds without a source are exactly those awaiting one", async (t) => {
  const without = EVENT_TYPES.filter((k) => SOURCES[k] === undefined);
  t.same([...without].sort(), [...awaitingSource].sort());
  t.same(
    awaitingSource.filter((k) => SOURCES[k] !== undefined),
    [],
    "a kind with a source has left the list",
  );
});

t.test("each source records a new event of its kind", async (t) => {
  for (const [kind, source] of Object.entries(SOURCES) as Array<
    [EventType, { how: string; run: () => Promise<unknown> }]
  >) {
    const before = (await listed(kind)).length;
    try {
      await source.run();
      // The pending-badge kinds are recorded when the mail server takes the mail: a moment later.
      await waitFor(`${kind}`, async () => (await listed(kind)).length > before, 10_000);
      t.pass(`${kind}: ${source.how}`);
    } catch (err) {
      // Later steps build on this one: the walk stops here.
      t.fail(`${kind}: ${source.how}: ${(err as Error).message}`);
      return;
    }
  }
});

t.test("every kind with a source was read with its shape and delivered, signed", async (t) => {
  const events = await listed();
  const seen = new Set(events.map((e) => e.event_type as EventType));
  t.same(
    EVENT_TYPES.filter((k) => !awaitingSource.includes(k) && !seen.has(k)),
    [],
    "every kind with a source was observed",
  );
  for (const detail of events) {
    const kind = detail.event_type as EventType;
    if (!Value.Check(SHAPES[eventFamily(kind)], detail)) t.fail(`${kind} ${detail.id}: not its family's shape`);
    if (eventFamily(kind) === "employment") {
      const employment = kind === "employment.deleted" ? ReducedEmploymentSchema : EmploymentSchema;
      if (!Value.Check(employment, detail.employment)) t.fail(`${kind} ${detail.id}: not its employment shape`);
    }
  }
  t.pass(`${events.length} event details checked against their shapes`);

  await waitFor("every event at the receiver", () => receiver.received.length >= events.length, 20_000);
  const delivered = new Map(receiver.received.map((d) => [d.json.id, d.json]));
  t.same(
    events.filter((e) => !delivered.has(e.id)).map((e) => `${e.event_type} ${e.id}`),
    [],
    "each event delivered",
  );
  t.same(
    receiver.received.filter((d) => !Value.Check(WebhookSummarySchema, d.json)).map((d) => d.json.id),
    [],
    "each delivery is the webhook summary",
  );
  t.same(receiver.verify([org.secret]), [], "each delivery signed with the organization's secret");
  t.same(
    events.filter((e) => delivered.get(e.id)?.event_type !== e.event_type).map((e) => e.id),
    [],
    "each delivery names its event's kind",
  );
});
