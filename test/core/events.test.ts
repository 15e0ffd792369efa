import t from "tap";
import { Value } from "typebox/value";
import type { BadgeStandardShape, BadgeTemplateJson } from "../../core/badges/mod.ts";
import { type Endorsement, EndorsementEventDetailSchema, endorsementEvent } from "../../core/endorsements/mod.ts";
import {
  accountMergedEvent,
  badgeEvent,
  badgeTemplateEvent,
  connectAccessRemovedEvent,
  type Employment,
  EmploymentSchema,
  EVENT_TYPES,
  type EventContext,
  EventDetailSchema,
  type EventRecord,
  type EventType,
  employmentBadgeEvent,
  employmentEvent,
  eventDetail,
  eventFamily,
  isEventType,
  LAUREL_EVENT_TYPES,
  pendingBadgeNotificationEvent,
  publicBadgesEvent,
  reduceEmployment,
  WebhookSummarySchema,
  webhookSummary,
} from "../../core/events/mod.ts";
import { employmentOf } from "../support/employment.ts";
import { BADGE } from "../support/webhooks.ts";

const ORG = "11111111-1111-4111-8111-111111111111";
const USER = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";
const ctx: EventContext = {
  id: "01890a5d-ac96-774b-bcce-b302099a8057",
  organization_id: ORG,
  occurred_at: new Date("2024-03-04T05:06:07.890Z"),
};

const badge: BadgeStandardShape = BADGE;

const endorsement: Endorsement = {
  id: "01890a5d-ac96-774b-bcce-b302099a8058",
  endorser_organization_id: USER,
  endorser_name: "Guild",
  endorsed_organization_id: ORG,
  endorsed_name: "Academy",
  target_kind: "organization",
  target_id: ORG,
  target_name: "Academy",
  comment: "Rigorous",
  state: "pending",
  created_at: "2024-03-04T05:06:07.890Z",
  updated_at: "2024-03-04T05:06:07.890Z",
  accepted_at: null,
  credential_url: null,
};

const template: BadgeTemplateJson = {
  id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
  name: "Rust",
  description: "Knows Rust",
  skills: ["rust"],
  reporting_tags: [],
  notification_message: null,
  image_url: null,
  url: null,
  vanity_slug: null,
  state: "active",
  public: true,
  criteria_url: null,
  global_activity_url: null,
  alignments: [],
  allow_duplicate_badges: false,
  badges_count: 1,
  owner: { type: "Organization", id: ORG, name: "Acme", url: `https://laurel.example/organizations/${ORG}` },
  created_at: "2024-01-01T00:00:00.000Z",
  updated_at: "2024-01-01T00:00:00.000Z",
};

const employment: Employment = employmentOf(ORG, "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee", {
  email: "ada@acme.example",
  country: "GB",
  employer: { id: ORG, name: "Acme", bio: "", industry: "manufacturing" },
  badges: [badge],
  employment_histories: [
    {
      id: "ffffffff-ffff-4fff-8fff-ffffffffffff",
      current: true,
      employer_job_title: "Engineer",
      vendor_occupation: null,
      occupation_name: null,
      model_version: null,
      confidence_rating: null,
      state: "unmapped",
    },
  ],
});

/** Builds a record of any kind with the builder that kind belongs to. */
const build = (kind: EventType): EventRecord => {
  switch (eventFamily(kind)) {
    case "badge":
      return badgeEvent(kind as Parameters<typeof badgeEvent>[0], badge, ctx);
    case "badge_template":
      return badgeTemplateEvent(kind as Parameters<typeof badgeTemplateEvent>[0], template, ctx);
    case "pending_badge_notification":
      return pendingBadgeNotificationEvent(
        kind as Parameters<typeof pendingBadgeNotificationEvent>[0],
        badge,
        "ada@example.org",
        ctx,
      );
    case "user.account_merged":
      return accountMergedEvent({ source_user_id: USER, destination_user_id: ORG }, ctx);
    case "user.connect_access.removed":
      return connectAccessRemovedEvent(USER, ctx);
    case "user.public_badges":
      return publicBadgesEvent(kind as Parameters<typeof publicBadgesEvent>[0], USER, badge, ctx);
    case "employment":
      return kind === "employment.badges.added" || kind === "employment.badges.removed"
        ? employmentBadgeEvent(kind, employment, badge, ctx)
        : employmentEvent(kind as Parameters<typeof employmentEvent>[0], employment, ctx);
    case "endorsement":
      return endorsementEvent(kind as Parameters<typeof endorsementEvent>[0], endorsement, ctx);
  }
};

const COMMON = ["id", "organization_id", "event_type", "occurred_at"];
const REDUCED = { id: employment.id, email: employment.email, external_id: "E-1" };

/** Expected extra keys per kind, authorized and not. */
const expectedKeys = (kind: EventType, authorized: boolean): string[] => {
  switch (eventFamily(kind)) {
    case "badge":
      return ["badge"];
    case "badge_template":
      return ["badge_template"];
    case "pending_badge_notification":
      return ["badge", "recipient_email"];
    case "user.account_merged":
      return ["source_user_id", "destination_user_id"];
    case "user.connect_access.removed":
      return ["user_id"];
    case "user.public_badges":
      return ["user_id", "badge"];
    case "employment":
      return authorized && (kind === "employment.badges.added" || kind === "employment.badges.removed")
        ? ["employment", "badge"]
        : ["employment"];
    case "endorsement":
      return ["endorsement"];
  }
};

t.test("the closed list has the interface's 30 kinds, then Laurel's own 2", (t) => {
  t.equal(EVENT_TYPES.length, 32);
  t.equal(new Set(EVENT_TYPES).size, 32);
  t.same(LAUREL_EVENT_TYPES, ["endorsement.created", "endorsement.state.changed"]);
  t.same(EVENT_TYPES.slice(30), LAUREL_EVENT_TYPES, "Laurel's own come after the interface's");
  t.ok(isEventType("badge.state.changed"));
  t.notOk(isEventType("badge.exploded"));
  const families = new Map<string, number>();
  for (const k of EVENT_TYPES) families.set(eventFamily(k), (families.get(eventFamily(k)) ?? 0) + 1);
  t.same(Object.fromEntries(families), {
    badge: 4,
    badge_template: 3,
    pending_badge_notification: 3,
    "user.account_merged": 1,
    "user.connect_access.removed": 1,
    "user.public_badges": 3,
    employment: 15,
    endorsement: 2,
  });
  t.end();
});

t.test("every kind x workforce authorization -> detail shape", (t) => {
  for (const kind of EVENT_TYPES) {
    for (const authorized of [true, false]) {
      const label = `${kind} authorized=${authorized}`;
      const record = build(kind);
      t.equal(record.event_type, kind, label);
      const d = eventDetail(record, { workforceAuthorized: authorized }) as Record<string, unknown>;
      t.same(Object.keys(d), [...COMMON, ...expectedKeys(kind, authorized)], label);
      t.equal(d.id, ctx.id);
      t.equal(d.organization_id, ORG);
      t.equal(d.occurred_at, "2024-03-04T05:06:07.890Z", `${label}: milliseconds`);
      const schema = eventFamily(kind) === "endorsement" ? EndorsementEventDetailSchema : EventDetailSchema;
      t.ok(Value.Check(schema, d), `${label}: matches the detail schema`);
      if (eventFamily(kind) === "employment") {
        const full = authorized && kind !== "employment.deleted";
        t.same(d.employment, full ? employment : REDUCED, `${label}: employment ${full ? "full" : "reduced"}`);
      } else if ("badge" in d) {
        t.same(d.badge, badge, label);
      }
    }
  }
  t.end();
});

t.test("kind-specific fields", (t) => {
  const merged = eventDetail(accountMergedEvent({ source_user_id: USER, destination_user_id: ORG }, ctx), {
    workforceAuthorized: true,
  });
  t.match(merged, { source_user_id: USER, destination_user_id: ORG });
  const notified = eventDetail(
    pendingBadgeNotificationEvent("pending_badge_notification.no_user.sent", badge, "x@example.org", ctx),
    { workforceAuthorized: false },
  );
  t.match(notified, { recipient_email: "x@example.org" });
  const external = eventDetail(employmentEvent("employment.external_badges.added", employment, ctx, { name: "AWS" }), {
    workforceAuthorized: true,
  });
  t.match(external, { external_badge: { name: "AWS" } });
  t.notOk(
    "external_badge" in
      eventDetail(employmentEvent("employment.external_badges.added", employment, ctx, { name: "AWS" }), {
        workforceAuthorized: false,
      }),
  );
  t.end();
});

t.test("details are snapshots and cannot be overridden by stored keys", (t) => {
  const mutable = structuredClone(badge);
  const record = badgeEvent("badge.state.changed", mutable, ctx);
  mutable.state = "revoked";
  mutable.badge_template.skills.push("later");
  const d = eventDetail(record, { workforceAuthorized: true }) as { badge: BadgeStandardShape };
  t.equal(d.badge.state, "accepted");
  t.same(d.badge.badge_template.skills, ["rust"]);
  const tampered: EventRecord = { ...record, detail: { ...record.detail, id: "other", event_type: "x" } };
  const d2 = eventDetail(tampered, { workforceAuthorized: true });
  t.equal(d2.id, ctx.id);
  t.equal(d2.event_type, "badge.state.changed");
  t.end();
});

t.test("employment schema accepts the full record and refuses a reduced one", (t) => {
  t.ok(Value.Check(EmploymentSchema, employment));
  t.notOk(Value.Check(EmploymentSchema, REDUCED));
  t.same(reduceEmployment(employment), REDUCED);
  t.end();
});

t.test("webhook summary has seconds precision", (t) => {
  const record = badgeEvent("badge.created", badge, ctx);
  const s = webhookSummary(record, new Date("2024-03-04T05:06:09.999Z"));
  t.same(s, {
    id: ctx.id,
    organization_id: ORG,
    event_type: "badge.created",
    occurred_at: "2024-03-04T05:06:07Z",
    delivered_at: "2024-03-04T05:06:09Z",
  });
  t.ok(Value.Check(WebhookSummarySchema, s));
  t.notOk(Value.Check(WebhookSummarySchema, { ...s, event_type: "badge.exploded" }));
  t.end();
});
