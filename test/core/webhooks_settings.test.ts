import t, { type Test } from "tap";
import type { AuditRecord } from "../../core/audit/mod.ts";
import type { OAuthApplicationRecord } from "../../core/credentials/mod.ts";
import { isCoreError } from "../../core/errors/mod.ts";
import { type EventRecord, type EventStore, getEvent, listEvents } from "../../core/events/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import {
  type DeliveryAdminStore,
  type DeliveryTargets,
  getWebhookSettings,
  newDeliveryProgress,
  parseCidr,
  redeliverEvent,
  redeliverFailed,
  type StoredDeliveryTarget,
  setDataServices,
  updateWebhookSettings,
  type WebhookDeliveryRecord,
  type WebhookSettingsRecord,
  webhookSecret,
} from "../../core/webhooks/mod.ts";

const ORG = "11111111-1111-4111-8111-111111111111";
const T0 = new Date("2024-03-01T12:00:00.000Z");
const later = (s: number): Date => new Date(T0.getTime() + s * 1000);

const rejects = async (t: Test, p: Promise<unknown>, code: string, field?: string): Promise<void> => {
  try {
    await p;
    t.fail(`expected ${code}`);
  } catch (err) {
    t.ok(isCoreError(err) && err.code === code, `${code}: ${(err as Error).message}`);
    if (field) t.ok(isCoreError(err) && err.errors.some((e) => e.field.startsWith(field)), `about ${field}`);
  }
};

const AUDIT = { by: { actor: { kind: "operator", id: null }, client_address: null }, newId: () => "audit-id" } as const;

const fakes = () => {
  const org: OrganizationRecord = {
    id: ORG,
    name: "Acme",
    description: null,
    email: null,
    website_url: null,
    image_url: null,
    created_at: T0,
    updated_at: T0,
  };
  const saved = new Map<string, WebhookSettingsRecord>();
  const audits: AuditRecord[] = [];
  let keys = 0;
  return {
    saved,
    audits,
    deps: {
      organizations: { get: async (id: string) => (id === ORG ? org : null) },
      settings: {
        get: async (id: string) => saved.get(id) ?? null,
        save: async (r: WebhookSettingsRecord, audit: AuditRecord) => {
          saved.set(r.organization_id, r);
          audits.push(audit);
        },
      },
      // "Sealing" that is visible in the test, so we can see nothing is stored in plaintext.
      secrets: { seal: (s: string) => `sealed(${s})`, open: (s: string) => s.slice(7, -1) },
      crypto: { newKey: () => `${String(++keys).repeat(43).slice(0, 43)}=` },
    },
  };
};

t.test("settings: HTTPS only, kinds checked, a secret on the first URL, absent fields kept", async (t) => {
  const { deps, saved } = fakes();
  const opts = { allowedNetworks: [], audit: AUDIT };
  t.same(await getWebhookSettings(deps, ORG, T0), { organization_id: ORG, webhook_url: null, event_types: [] });
  await rejects(
    t,
    updateWebhookSettings(deps, T0, ORG, { webhook_url: "http://hooks.example/" }, opts),
    "validation_failed",
    "webhook_url",
  );
  await rejects(
    t,
    updateWebhookSettings(deps, T0, ORG, { webhook_url: "https://10.1.2.3/" }, opts),
    "validation_failed",
    "webhook_url",
  );
  await rejects(
    t,
    updateWebhookSettings(deps, T0, ORG, { event_types: ["badge.created", "nope"] }, opts),
    "validation_failed",
    "event_types.1",
  );
  await rejects(t, updateWebhookSettings(deps, T0, "22222222-2222-4222-8222-222222222222", {}, opts), "not_found");
  t.equal(saved.size, 0, "nothing saved by a refused change");

  const set = await updateWebhookSettings(
    deps,
    T0,
    ORG,
    { webhook_url: "https://hooks.example/x", event_types: ["badge.state.changed", "badge.created", "badge.created"] },
    opts,
  );
  t.same(set, {
    organization_id: ORG,
    webhook_url: "https://hooks.example/x",
    event_types: ["badge.created", "badge.state.changed"],
  });
  t.match(saved.get(ORG)?.secret_sealed, /^sealed\(whsec_1{43}=\)$/, "a secret, stored sealed");
  const kinds = await updateWebhookSettings(deps, later(1), ORG, { event_types: "all" }, opts);
  t.equal(kinds.webhook_url, "https://hooks.example/x", "the URL stays when not given");
  t.equal(kinds.event_types, "all");
  t.match(saved.get(ORG)?.secret_sealed, /1{43}/, "and so does the secret");
  const cleared = await updateWebhookSettings(deps, later(2), ORG, { webhook_url: null }, opts);
  t.equal(cleared.webhook_url, null);
  const allowed = await updateWebhookSettings(
    deps,
    later(3),
    ORG,
    { webhook_url: "https://10.1.2.3/" },
    {
      allowedNetworks: [parseCidr("10.0.0.0/8") as NonNullable<ReturnType<typeof parseCidr>>],
      audit: AUDIT,
    },
  );
  t.equal(allowed.webhook_url, "https://10.1.2.3/", "an allowlisted private address is accepted");
});

t.test("the signing secret: created once, shown again, rotated with a 24-hour overlap", async (t) => {
  const { deps, saved, audits } = fakes();
  const first = await webhookSecret(deps, T0, ORG, { rotate: false, audit: AUDIT });
  t.same(first, { secret: `whsec_${"1".repeat(43)}=` });
  t.same(
    await webhookSecret(deps, later(5), ORG, { rotate: false, audit: AUDIT }),
    first,
    "asking again shows the same one",
  );
  const rotated = await webhookSecret(deps, later(10), ORG, { rotate: true, audit: AUDIT });
  t.same(rotated, {
    secret: `whsec_${"2".repeat(43)}=`,
    previous_secret: first.secret,
    previous_secret_expires_at: later(10 + 86_400).toISOString(),
  });
  t.same(
    await webhookSecret(deps, later(10 + 86_400), ORG, { rotate: false, audit: AUDIT }),
    { secret: rotated.secret },
    "the old one is gone after 24 hours",
  );
  const again = await webhookSecret(deps, later(20), ORG, { rotate: true, audit: AUDIT });
  t.equal(again.previous_secret, rotated.secret, "a rotation during the overlap keeps only the latest previous");
  t.notOk(JSON.stringify([...saved.values()]).includes(`"whsec_`), "no secret stored in plaintext");
  t.same(
    audits.map((x) => [x.action, x.details.rotated]),
    [
      ["webhook_secret.rotated", false],
      ["webhook_secret.rotated", true],
      ["webhook_secret.rotated", true],
    ],
    "each saved secret change is audited, and no secret is in the audit row",
  );
  t.notOk(JSON.stringify(audits).includes("whsec_"));
});

t.test("data services on an OAuth application", async (t) => {
  const apps = new Map<number, OAuthApplicationRecord>([
    [7, { id: 7, organization_id: ORG, name: "Sync", data_services_enabled: false } as OAuthApplicationRecord],
  ]);
  const deps = {
    apps: {
      get: async (org: string, id: number) => (apps.get(id)?.organization_id === org ? (apps.get(id) ?? null) : null),
      update: async (a: OAuthApplicationRecord) => void apps.set(a.id, a),
    },
  };
  t.same(await setDataServices(deps, { now: T0, newId: () => "audit-id" }, ORG, 7, true), {
    organization_id: ORG,
    application_id: 7,
    name: "Sync",
    data_services_enabled: true,
  });
  t.equal(apps.get(7)?.data_services_enabled, true);
  t.equal(
    (await setDataServices(deps, { now: T0, newId: () => "audit-id" }, ORG, 7, false)).data_services_enabled,
    false,
  );
  await rejects(t, setDataServices(deps, { now: T0, newId: () => "audit-id" }, ORG, 8, true), "not_found");
  await rejects(
    t,
    setDataServices(deps, { now: T0, newId: () => "audit-id" }, "22222222-2222-4222-8222-222222222222", 7, true),
    "not_found",
  );
});

const EVENT: EventRecord = {
  id: "0190a0b0-0000-7000-8000-000000000002",
  organization_id: ORG,
  event_type: "badge.created",
  occurred_at: T0,
  detail: { badge: { id: "b" } },
};

const operatorFakes = (target: Partial<StoredDeliveryTarget>, latest: WebhookDeliveryRecord | null) => {
  const inserted: WebhookDeliveryRecord[] = [];
  const targets: DeliveryTargets = {
    target: async () => ({
      webhookUrl: "https://hooks.example/",
      eventTypes: "all",
      hasDataServicesApplication: true,
      secretSealed: "s",
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      ...target,
    }),
  };
  const deliveries = {
    latestForEvent: async () => latest,
    insert: async (r: WebhookDeliveryRecord) => void inserted.push(r),
    redeliverFailed: async () => 3,
  } as unknown as DeliveryAdminStore;
  const events = { get: async (_org: string, id: string) => (id === EVENT.id ? EVENT : null) };
  return { inserted, deps: { deliveries, events, targets } };
};

t.test("redelivery: a new delivery of the event, unless one is under way or it would not be posted", async (t) => {
  const ctx = { now: T0, newId: () => "0190a0b0-0000-7000-8000-0000000000ff" };
  const ok = operatorFakes({}, null);
  const d = await redeliverEvent(ok.deps, ctx, ORG, EVENT.id);
  t.match(d, {
    id: ctx.newId(),
    event_id: EVENT.id,
    status: "pending",
    attempts_count: 0,
    next_attempt_at: T0.toISOString(),
  });
  t.equal(ok.inserted.length, 1);

  await rejects(t, redeliverEvent(ok.deps, ctx, ORG, "0190a0b0-0000-7000-8000-000000000003"), "not_found");
  const busy = operatorFakes(
    {},
    { ...EVENT, id: "x", event_id: EVENT.id, created_at: T0, progress: newDeliveryProgress(T0) },
  );
  await rejects(t, redeliverEvent(busy.deps, ctx, ORG, EVENT.id), "validation_failed", "event_id");
  for (const target of [
    { webhookUrl: null },
    { eventTypes: ["badge.deleted"] },
    { hasDataServicesApplication: false },
  ]) {
    await rejects(t, redeliverEvent(operatorFakes(target, null).deps, ctx, ORG, EVENT.id), "validation_failed");
  }
  t.same(await redeliverFailed(ok.deps, ctx, ORG, T0), { redelivered: 3 });
  await rejects(t, redeliverFailed(operatorFakes({ webhookUrl: null }, null).deps, ctx, ORG, T0), "validation_failed");
});

t.test("event queries apply the workforce rule at read time", async (t) => {
  const employment = { id: "e", email: "a@example.com", external_id: "X", first_name: "Ada" };
  const record: EventRecord = { ...EVENT, event_type: "employment.updated", detail: { employment } };
  let authorized = false;
  const store: EventStore = {
    list: async () => ({ items: [record], total: 1 }),
    get: async (_o, id) => (id === record.id ? record : null),
    workforceAuthorized: async () => authorized,
  };
  const reduced = await getEvent({ events: store }, ORG, record.id);
  t.same((reduced as { employment: unknown }).employment, { id: "e", email: "a@example.com", external_id: "X" });
  authorized = true;
  const page = await listEvents(
    { events: store },
    ORG,
    { filters: {}, sort: [], page: 1 },
    { page: 1, per: 50, offset: 0 },
  );
  t.same((page.items[0] as { employment: unknown }).employment, employment);
  t.equal(page.total, 1);
  await rejects(t, getEvent({ events: store }, ORG, "other"), "not_found");
});
