import t from "tap";
import { cachingAuthenticator } from "../../adapters/rest/mod.ts";
import type { AuthorizationTokenRecord, OAuthApplicationRecord } from "../../core/credentials/mod.ts";

const NOW = new Date("2026-11-25T00:00:00Z");
const basicHeader = (value: string) => `Basic ${Buffer.from(`${value}:`).toString("base64")}`;

const tokenRecord = (id: string, digest: string): AuthorizationTokenRecord => ({
  id,
  organization_id: "org",
  description: "",
  token_digest: digest,
  token_sealed: "",
  created_at: NOW,
  expires_at: new Date(NOW.getTime() + 86_400_000),
  revoked_at: null,
  last_used_at: null,
  last_successfully_used_at: null,
  read_enabled: true,
  write_enabled: true,
  delete_enabled: true,
});

const appRecord = (uid: string): OAuthApplicationRecord => ({
  id: 1,
  organization_id: "org",
  name: "app",
  description: null,
  uid,
  secret_digest: "",
  created_by_id: "x",
  created_by_type: "x",
  created_by_name: "x",
  data_services_enabled: false,
  ceiling_read_enabled: true,
  ceiling_write_enabled: true,
  ceiling_delete_enabled: true,
  ceiling_scopes: null,
  scopes: null,
  redirect_uris: "",
  created_at: NOW,
  updated_at: NOW,
  last_used_at: null,
  last_successfully_used_at: null,
});

/** A token store whose answers the test releases by hand, and that counts its reads. */
const fixture = (caches?: Parameters<typeof cachingAuthenticator>[0]["caches"]) => {
  const stored = new Map<string, AuthorizationTokenRecord>();
  const apps = new Map<string, OAuthApplicationRecord>();
  const reads: string[] = [];
  let hold: Array<() => void> | null = null;
  const clock = { ms: 1_000 };
  const auth = cachingAuthenticator({
    tokens: {
      findByDigest: async (digest) => {
        reads.push(digest);
        const answer = stored.get(digest) ?? null;
        if (hold) await new Promise<void>((resolve) => hold?.push(resolve));
        return answer;
      },
    },
    apps: {
      findByUid: async (uid) => {
        reads.push(uid);
        const answer = apps.get(uid) ?? null;
        if (hold) await new Promise<void>((resolve) => hold?.push(resolve));
        return answer;
      },
    },
    secrets: { digest: (v: string) => `d:${v}` } as never,
    verifyAccessToken: async () => null,
    writeUse: async () => {},
    onWriteError: () => {},
    now: () => clock.ms,
    caches,
  });
  return {
    auth,
    stored,
    apps,
    reads,
    clock,
    holdReads: () => {
      hold = [];
    },
    release: () => {
      const waiting = hold ?? [];
      hold = null;
      for (const r of waiting) r();
    },
    pending: () => hold?.length ?? 0,
  };
};

const tick = () => new Promise((r) => setImmediate(r));

t.test("a flood of unknown tokens does not evict the popular one", async (t) => {
  const f = fixture();
  f.stored.set("d:popular", tokenRecord("t1", "d:popular"));
  t.ok(await f.auth.authenticate(basicHeader("popular"), NOW));
  for (let i = 0; i < 60_000; i++) await f.auth.authenticate(basicHeader(`unknown-${i}`), NOW);
  const before = f.reads.length;
  t.ok(await f.auth.authenticate(basicHeader("popular"), NOW), "still valid");
  t.equal(f.reads.length, before, "answered from the cache, no database read");
  // The misses themselves are cached briefly and bounded: a repeat costs no read either.
  await f.auth.authenticate(basicHeader("unknown-59999"), NOW);
  t.equal(f.reads.length, before);
});

t.test("overlong credentials are refused before any look-up", async (t) => {
  const f = fixture();
  t.equal(await f.auth.authenticate(basicHeader("x".repeat(513)), NOW), null);
  t.equal(await f.auth.authenticate(`Basic ${"QUFB".repeat(100_000)}`, NOW), null);
  t.equal(await f.auth.authenticate(`Bearer ${"a".repeat(5000)}`, NOW), null);
  t.equal(await f.auth.application("c".repeat(129)), null);
  t.equal(await f.auth.application("client\u0000id"), null);
  t.equal(await f.auth.authenticate("Digest abc", NOW), null);
  t.equal(await f.auth.authenticate(undefined, NOW), null);
  t.same(f.reads, [], "the store was never asked");
});

t.test("a look-up overtaken by a revocation does not cache the stale token", async (t) => {
  const f = fixture();
  f.stored.set("d:secret", tokenRecord("t1", "d:secret"));
  f.holdReads();
  const inFlight = f.auth.authenticate(basicHeader("secret"), NOW);
  await tick();
  t.equal(f.pending(), 1, "the first read has the token as it was");
  // The rotation commits and its revocation arrives while that read is still under way.
  f.stored.delete("d:secret");
  f.auth.revoke({ kind: "token", digest: "d:secret" });
  f.release();
  t.equal(await inFlight, null, "asked again after the revocation: refused");
  t.equal(await f.auth.authenticate(basicHeader("secret"), NOW), null, "and not cached as valid");
  t.equal(f.reads.filter((r) => r === "d:secret").length, 2, "one read before, one after the revocation");
});

t.test("an application look-up overtaken by its deletion is not cached; deny markers stay", async (t) => {
  const f = fixture();
  f.apps.set("client", appRecord("client"));
  f.holdReads();
  const inFlight = f.auth.application("client");
  await tick();
  f.apps.delete("client");
  f.auth.revoke({ kind: "application", clientId: "client" });
  f.release();
  t.equal(await inFlight, null);
  f.apps.set("client", appRecord("client"));
  t.equal(await f.auth.application("client"), null, "the deny marker outlives a stale store");
});

t.test("forgetAll drops every cached credential; entries expire on the injected clock", async (t) => {
  const f = fixture();
  f.stored.set("d:a", tokenRecord("t1", "d:a"));
  await f.auth.authenticate(basicHeader("a"), NOW);
  const reads = f.reads.length;
  f.auth.forgetAll();
  await f.auth.authenticate(basicHeader("a"), NOW);
  t.equal(f.reads.length, reads + 1, "read again after forgetAll");
  f.clock.ms += 30_001;
  await f.auth.authenticate(basicHeader("a"), NOW);
  t.equal(f.reads.length, reads + 2, "read again after the TTL");
});

t.test("use is recorded at most once a minute per credential and kind", async (t) => {
  const writes: string[] = [];
  const clock = { ms: 1_000 };
  const auth = cachingAuthenticator({
    tokens: { findByDigest: async () => null },
    apps: { findByUid: async () => null },
    secrets: { digest: (v: string) => v } as never,
    verifyAccessToken: async () => null,
    writeUse: async (ref, _at, allowed) => {
      writes.push(`${ref.id}:${allowed}`);
    },
    onWriteError: () => {},
    now: () => clock.ms,
  });
  auth.recordUse({ kind: "oauth", id: 1 }, true, NOW);
  auth.recordUse({ kind: "oauth", id: 1 }, true, NOW);
  auth.recordUse({ kind: "oauth", id: 1 }, false, NOW);
  clock.ms += 60_001;
  auth.recordUse({ kind: "oauth", id: 1 }, true, NOW);
  t.same(writes, ["1:true", "1:false", "1:true"]);
});

t.test("an access token: verified once, refused at once when its application is revoked", async (t) => {
  let verified = 0;
  const apps = new Map([["client", appRecord("client")]]);
  const exp = Math.floor(NOW.getTime() / 1000) + 3600;
  const auth = cachingAuthenticator({
    tokens: { findByDigest: async () => null },
    apps: { findByUid: async (uid) => apps.get(uid) ?? null },
    secrets: { digest: (v: string) => v } as never,
    verifyAccessToken: async (jwt) => {
      verified++;
      return jwt === "good.jwt.sig" ? { client_id: "client", sub: "org", scope: "events", jti: "j1", exp } : null;
    },
    writeUse: async () => {},
    onWriteError: () => {},
    now: () => 1_000,
  });
  t.match(await auth.authenticate("Bearer good.jwt.sig", NOW), { ref: { kind: "oauth", id: 1 } });
  t.ok(await auth.authenticate("Bearer good.jwt.sig", NOW));
  t.equal(verified, 1, "the signature is checked once while cached");
  t.equal(await auth.authenticate("Bearer forged.jwt.sig", NOW), null);
  t.equal(await auth.authenticate("Bearer good.jwt.sig", new Date((exp + 1) * 1000)), null, "expired");
  auth.revoke({ kind: "application", clientId: "client" });
  t.equal(await auth.authenticate("Bearer good.jwt.sig", NOW), null, "revoked on this process at once");
});
