import { createSecretKey, randomUUID } from "node:crypto";
import t from "tap";
import { nodeSecretBox } from "../../adapters/crypto/mod.ts";
import {
  postgresAuthorizationTokenStore,
  postgresDeliveryAdminStore,
  postgresDeliveryTargets,
} from "../../adapters/db/mod.ts";
import type { Credential } from "../../core/auth/mod.ts";
import {
  createAuthorizationToken,
  findUsableToken,
  replaceAuthorizationToken,
  revokeAuthorizationToken,
} from "../../core/credentials/mod.ts";
import { deliveryLog, newDeliveryProgress, redeliverEvent, sendTestEvent } from "../../core/webhooks/mod.ts";
import { openStoreDatabase } from "../support/store_database.ts";

// The stores behind the console's Developers section on real PostgreSQL: the keyset delivery log,
// test deliveries and their redelivery, and tokens revoked or replaced by id.
const db = await openStoreDatabase(t);

const ORG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b11";
const OTHER = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b12";
const base = new Date("2026-11-27T12:00:00Z");
for (const id of [ORG, OTHER]) {
  await db.run(
    "insert into organizations (id, name, email, created_at, updated_at) values (?, 'Acme', 'a@acme.test', ?, ?)",
    [id, base, base],
  );
}

t.test(
  "the delivery log pages by keyset: newest first, every delivery once, same created_at split by id",
  async (t) => {
    const deliveries = postgresDeliveryAdminStore(db);
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      // Pairs share a created_at: the id breaks the tie, so no delivery is skipped or repeated.
      const at = new Date(base.getTime() + Math.floor(i / 2) * 1000);
      const id = randomUUID();
      ids.push(id);
      await deliveries.insert({
        id,
        event_id: randomUUID(),
        organization_id: ORG,
        event_type: "badge.created",
        occurred_at: at,
        created_at: at,
        progress: newDeliveryProgress(at),
      });
    }
    await deliveries.insert({
      id: randomUUID(),
      event_id: randomUUID(),
      organization_id: OTHER,
      event_type: "badge.created",
      occurred_at: base,
      created_at: base,
      progress: newDeliveryProgress(base),
    });
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof deliveryLog>> = await deliveryLog({ deliveries }, ORG, after, 5);
      seen.push(...page.entries.map((e) => e.delivery.id));
      after = page.next;
      pages++;
    } while (after && pages < 10);
    t.equal(pages, 5, "23 deliveries in pages of 5");
    t.equal(new Set(seen).size, 23, "every delivery once");
    t.same(new Set(seen), new Set(ids), "only the organization's");
    const created = await db.all<{ id: string; created_at: Date }>(
      "select id, created_at from webhook_deliveries where organization_id = ? order by created_at desc, id desc",
      [ORG],
    );
    t.same(
      seen,
      created.map((r) => r.id),
      "newest first, ties by id",
    );
    t.same(
      (await deliveryLog({ deliveries }, ORG, randomUUID(), 5)).entries,
      [],
      "an unknown cursor: nothing after it",
    );
  },
);

t.test("a test delivery is due at once and can be redelivered; refused without an address", async (t) => {
  const deliveries = postgresDeliveryAdminStore(db);
  const targets = postgresDeliveryTargets(db);
  const ctx = { now: base, newId: randomUUID };
  await t.rejects(sendTestEvent({ deliveries, targets }, ctx, OTHER), { code: "validation_failed" });
  const stub = {
    target: async () => ({
      ...(await targets.target(ORG)),
      webhookUrl: "https://h.example/in",
      hasDataServicesApplication: true,
    }),
  };
  const sent = await sendTestEvent({ deliveries, targets: stub }, ctx, ORG);
  t.equal(sent.event_type, "webhook.test");
  t.equal(sent.status, "pending");
  await db.run("update webhook_deliveries set status = 'succeeded' where id = ?", [sent.id]);
  const again = await redeliverEvent(
    { deliveries, targets: stub, events: { get: async () => null } },
    { now: new Date(base.getTime() + 1000), newId: randomUUID },
    ORG,
    sent.event_id,
  );
  t.equal(again.event_id, sent.event_id, "the same event id (webhook-id)");
  t.not(again.id, sent.id, "a new delivery");
});

t.test("tokens revoked or replaced by id; never one stronger than the caller", async (t) => {
  const tokens = postgresAuthorizationTokenStore(db);
  const secrets = nodeSecretBox({
    hmacKey: createSecretKey(Buffer.alloc(32, 7)),
    aesKey: createSecretKey(Buffer.alloc(32, 9)),
  });
  const revoked: string[] = [];
  const deps = {
    tokens,
    secrets,
    revocations: { tokenRevoked: async (d: string) => void revoked.push(d), applicationRevoked: async () => {} },
  };
  const ctx = () => ({ now: new Date(), newId: randomUUID });
  const full: Credential = {
    kind: "authorization_token",
    organizationId: ORG,
    tokenId: randomUUID(),
    read_enabled: true,
    write_enabled: true,
    delete_enabled: true,
  };
  const reader: Credential = { ...full, write_enabled: false, delete_enabled: false };
  const strong = await createAuthorizationToken(deps, ctx(), full, { description: "strong" });
  const weak = await createAuthorizationToken(deps, ctx(), full, { write_enabled: false, delete_enabled: false });
  await t.rejects(
    revokeAuthorizationToken(deps, ctx(), reader, ORG, strong.token.id),
    { code: "forbidden" },
    "stronger than the caller",
  );
  await t.rejects(
    revokeAuthorizationToken(deps, ctx(), { ...full, organizationId: OTHER }, OTHER, strong.token.id),
    { code: "not_found" },
    "another organization's",
  );
  const replaced = await replaceAuthorizationToken(deps, ctx(), reader, weak.token.id);
  t.equal(await findUsableToken(deps, weak.value, new Date()), null, "the old value stops working");
  t.ok(await findUsableToken(deps, replaced.value, new Date()), "the new one works");
  t.same([replaced.token.read_enabled, replaced.token.write_enabled], [true, false], "same permissions");
  await revokeAuthorizationToken(deps, ctx(), full, ORG, strong.token.id);
  t.equal(await findUsableToken(deps, strong.value, new Date()), null, "revoked");
  t.equal(revoked.length, 2, "every process told");
  await t.rejects(
    revokeAuthorizationToken(deps, ctx(), full, ORG, strong.token.id),
    { code: "not_found" },
    "once only",
  );
});

t.test("100,000 deliveries: a deep page of the log reads the index only, sorts and counts nothing", async (t) => {
  const BIG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b13";
  await db.run(
    "insert into organizations (id, name, email, created_at, updated_at) values (?, 'Big', 'b@acme.test', ?, ?)",
    [BIG, base, base],
  );
  await db.run(
    `insert into webhook_deliveries (id, event_id, organization_id, event_type, occurred_at, status, attempts_count, created_at)
     select gen_random_uuid(), gen_random_uuid(), ?::uuid, 'badge.created', t, 'succeeded', 1, t
     from (select ?::timestamptz + make_interval(secs => g) as t from generate_series(1, 100000) g) s`,
    [BIG, base],
  );
  await db.run("analyze webhook_deliveries");
  const deliveries = postgresDeliveryAdminStore(db);
  const middle = await db.one<{ id: string }>(
    "select id from webhook_deliveries where organization_id = ? order by created_at desc, id desc offset 50000 limit 1",
    [BIG],
  );
  await deliveryLog({ deliveries }, BIG, middle?.id ?? null, 25);
  const started = performance.now();
  const page = await deliveryLog({ deliveries }, BIG, middle?.id ?? null, 25);
  const ms = performance.now() - started;
  t.equal(page.entries.length, 25);
  t.ok(page.next, "a next page");
  const plan = await db.all<Record<string, unknown>>(
    `explain (format json) select d.id from webhook_deliveries d
     where d.organization_id = ?::uuid
       and (d.created_at, d.id) < (select c.created_at, c.id from webhook_deliveries c
                                   where c.id = ?::uuid and c.organization_id = ?::uuid)
     order by d.created_at desc, d.id desc limit 26`,
    [BIG, middle?.id, BIG],
  );
  const text = JSON.stringify(plan);
  // The table is partitioned by week (migration 029): each partition's copy of the index is named
  // after it, and a partition left empty may be read by a scan of its zero pages.
  t.match(text, /webhook_deliveries_\w+_organization_id_created_at_id_idx/, "the (organization, created_at, id) index");
  t.notMatch(text, /"Node Type":\s*"(Sort|Aggregate)"/, "no sort, no count");
  const filled = await db.all<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'webhook_deliveries'::regclass and c.reltuples > 0`,
  );
  t.ok(filled.length > 0);
  for (const { name } of filled) {
    t.notMatch(text, new RegExp(`"Node Type":"Seq Scan"[^}]*"Relation Name":"${name}"`), `no scan of ${name}`);
  }
  t.match(
    text,
    /"Index Cond":\s*"[^"]*created_at[^"]*"/,
    "the cursor bounds the index scan (not a filter over skipped rows)",
  );
  t.comment(`page 2,001 of 100,000 deliveries: ${ms.toFixed(1)} ms`);
});
