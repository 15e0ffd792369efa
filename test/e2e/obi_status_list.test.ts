import { BitstringStatusList } from "@digitalbazaar/vc-bitstring-status-list";
import t from "tap";
import { migratePostgres } from "../../adapters/db/migrate.ts";
import { apiClient, createTemplate, issueBody, type OrgFixture, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { fetchCredential, fetchVcJwt } from "../support/ob3.ts";

/** OB 3.0 revocation: the status list a credential names, decoded by a Bitstring Status List library. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let org: OrgFixture;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
  org = await organization(laurel, "Status Org");
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

const issued = async (template: string, email: string): Promise<Doc> => {
  const res = await api("POST", org.badges, org.auth, issueBody(template, { recipient_email: email }));
  if (res.status !== 201) throw new Error(`issue failed: ${JSON.stringify(res.body)}`);
  await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
  return res.body.data;
};

const credentialStatus = async (badgeId: string): Promise<Doc> => {
  const res = await fetchCredential(`${laurel.baseUrl}/obi/v3/credentials/${badgeId}`);
  if (res.status !== 200) throw new Error(`credential ${badgeId}: ${res.status}`);
  return (res.payload as Doc).credentialStatus;
};

/** Whether the bit of `entry` is set in the list it names, decoded with the library. */
const revokedIn = async (entry: Doc): Promise<{ set: boolean; headers: Headers }> => {
  const res = await fetchVcJwt(entry.statusListCredential);
  if (res.status !== 200) throw new Error(`status list: ${res.status}`);
  const list = await BitstringStatusList.decode({ encodedList: (res.payload as Doc).credentialSubject.encodedList });
  return { set: list.getStatus(Number(entry.statusListIndex)), headers: res.headers };
};

t.test("a revoked badge's bit is set in the served list; another badge's is clear", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Listed", allow_duplicate_badges: true });
  const kept = await issued(tpl.id, "kept@example.org");
  const revoked = await issued(tpl.id, "revoked@example.org");

  const keptEntry = await credentialStatus(kept.id);
  const revokedEntry = await credentialStatus(revoked.id);
  const listUrl = `${laurel.baseUrl}/obi/v3/status_lists/${org.id}/0`;
  for (const entry of [keptEntry, revokedEntry]) {
    t.match(entry, {
      type: "BitstringStatusListEntry",
      statusPurpose: "revocation",
      statusListCredential: listUrl,
      statusListIndex: /^(0|[1-9][0-9]*)$/,
    });
    t.equal(entry.id, `${listUrl}#${entry.statusListIndex}`);
    t.ok(Number(entry.statusListIndex) < 131_072);
  }
  t.not(keptEntry.statusListIndex, revokedEntry.statusListIndex, "two badges, two indexes");

  const before = await revokedIn(revokedEntry);
  t.equal(before.set, false, "not revoked yet");
  t.equal(before.headers.get("content-type"), "application/vc+jwt");
  t.equal(before.headers.get("cache-control"), "public, max-age=30");

  t.equal((await api("PUT", `${org.badges}/${revoked.id}/revoke`, org.auth, { reason: "Withdrawn" })).status, 200);
  t.equal((await revokedIn(revokedEntry)).set, true, "revoked: its bit is set at once, though the list was cached");
  t.equal((await revokedIn(keptEntry)).set, false, "the other badge's bit stays clear");

  const list = await fetchVcJwt(listUrl);
  const payload = list.payload as Doc;
  t.same(payload.type, ["VerifiableCredential", "BitstringStatusListCredential"]);
  t.equal(payload.id, listUrl);
  t.equal(payload.jti, listUrl);
  t.equal(payload.issuer, `${laurel.baseUrl}/obi/v3/issuers/${org.id}`);
  t.equal(payload.iss, payload.issuer);
  t.match(payload.credentialSubject, { type: "BitstringStatusList", statusPurpose: "revocation" });
  const decoded = await BitstringStatusList.decode({ encodedList: payload.credentialSubject.encodedList });
  t.ok(decoded.length >= 131_072, "at least 131,072 entries");

  const etag = list.headers.get("etag");
  t.ok(etag, "an ETag");
  t.equal((await fetch(listUrl, { headers: { "if-none-match": etag as string } })).status, 304);
});

t.test("a deleted badge's bit is set and its index is not handed out again", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Deleted", allow_duplicate_badges: true });
  const gone = await issued(tpl.id, "gone@example.org");
  const entry = await credentialStatus(gone.id);
  t.equal((await api("DELETE", `${org.badges}/${gone.id}`, org.auth)).status, 204);
  t.equal((await revokedIn(entry)).set, true);
});

t.test("indexes are spread over the list, not handed out in issue order", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Spread", allow_duplicate_badges: true });
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: `s${i}@example.org` }));
    ids.push(res.body.data.id);
  }
  const rows = (await laurel.db.all(`select status_index from badges where organization_id = ? order by id`, [
    org.id,
  ])) as { status_index: number }[];
  const indexes = rows.map((r) => Number(r.status_index));
  t.equal(new Set(indexes).size, indexes.length, "no index twice");
  const sorted = [...indexes].sort((a, b) => a - b);
  t.not(JSON.stringify(indexes), JSON.stringify(sorted), "not increasing with issue order");
  t.ok((sorted.at(-1) ?? 0) > 1_000, "spread over the list, not packed at its start");
});

t.test("unknown lists and malformed addresses are 404", async (t) => {
  for (const path of [
    `${org.id}/7`,
    `${org.id}/999999`,
    `${org.id}/01`,
    `${org.id}/x`,
    "not-a-uuid/0",
    `00000000-0000-4000-8000-000000000000/0`,
  ]) {
    const res = await fetch(`${laurel.baseUrl}/obi/v3/status_lists/${path}`);
    t.equal(res.status, 404, path);
    t.match(await res.json(), { data: { code: "not_found" } });
  }
});

t.test("on PGlite (npm start) too: indexes assigned, the revoked bit set", async (t) => {
  const lite = await startLaurel({ database: "pglite" });
  t.teardown(() => lite.close());
  const liteApi = apiClient(lite);
  const liteOrg = await organization(lite, "Lite Org");
  const tpl = await createTemplate(lite, liteOrg, { name: "Lite", allow_duplicate_badges: true });
  const ids: string[] = [];
  for (const email of ["a@example.org", "b@example.org"]) {
    const res = await liteApi("POST", liteOrg.badges, liteOrg.auth, issueBody(tpl.id, { recipient_email: email }));
    await trpc(lite, "badges.accept", { badge_id: res.body.data.id });
    ids.push(res.body.data.id);
  }
  const entries: Doc[] = [];
  for (const id of ids) entries.push((await fetchCredential(`${lite.baseUrl}/obi/v3/credentials/${id}`)).payload);
  await liteApi("PUT", `${liteOrg.badges}/${ids[0]}/revoke`, liteOrg.auth, { reason: "Withdrawn" });
  const list = await fetchVcJwt(`${lite.baseUrl}/obi/v3/status_lists/${liteOrg.id}/0`);
  const decoded = await BitstringStatusList.decode({
    encodedList: (list.payload as Doc).credentialSubject.encodedList,
  });
  t.equal(decoded.getStatus(Number(entries[0].credentialStatus.statusListIndex)), true);
  t.equal(decoded.getStatus(Number(entries[1].credentialStatus.statusListIndex)), false);
});

t.test("the migration gives existing badges distinct indexes, and their revocations show", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Existing", allow_duplicate_badges: true });
  const before = [];
  for (const email of ["e1@example.org", "e2@example.org", "e3@example.org"]) before.push(await issued(tpl.id, email));
  t.equal((await api("PUT", `${org.badges}/${before[0].id}/revoke`, org.auth, { reason: "Old" })).status, 200);
  // The database as it was before the status lists: the migration is then run on these badges.
  for (const sql of [
    "drop trigger badge_status_assign on badges",
    "drop trigger badge_status_retire on badges",
    "drop function badge_status_assign()",
    "drop function badge_status_retire()",
    "alter table badges drop column status_index",
    "drop table badge_status_lists",
    "drop table badge_status_retired",
    "delete from mikro_orm_migrations where name = 'm20261127_022_status_lists'",
  ])
    await laurel.db.run(sql);
  await migratePostgres(laurel.database?.url ?? "");

  const rows = (await laurel.db.all("select status_index from badges where organization_id = ?", [org.id])) as {
    status_index: number;
  }[];
  t.ok(rows.length >= 3);
  t.equal(new Set(rows.map((r) => r.status_index)).size, rows.length, "every existing badge, its own index");
  const entries = [];
  for (const b of before) entries.push(await credentialStatus(b.id).catch(() => null));
  // The first is revoked (410, no credential): its index is read from the database.
  const [revokedRow] = (await laurel.db.all("select status_index from badges where id = ?", [before[0].id])) as {
    status_index: number;
  }[];
  t.equal(
    (
      await revokedIn({
        statusListCredential: entries[1].statusListCredential,
        statusListIndex: revokedRow?.status_index,
      })
    ).set,
    true,
    "a badge revoked before the migration: its bit set",
  );
  t.equal((await revokedIn(entries[1])).set, false);
  t.equal((await revokedIn(entries[2])).set, false);
  const next = await issued(tpl.id, "after@example.org");
  t.match(await credentialStatus(next.id), { type: "BitstringStatusListEntry" }, "issuing goes on after it");
});
