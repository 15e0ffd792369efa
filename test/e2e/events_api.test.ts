import t from "tap";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { clientBearer } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { BADGE, recordEvents } from "../support/webhooks.ts";

/** The events API end to end: the events list and detail, on real PostgreSQL. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

const api = async (path: string, auth: string | null) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, { headers: auth ? { authorization: auth } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

t.test("the list: 50 a page, newest first, totals without counting, empty pages past the end", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Eventful");
  const auth = basic(authorization_token.token);
  const base = `/organizations/${organization.id}/events`;

  const empty = await api(base, auth);
  t.equal(empty.status, 200);
  t.same(empty.body.data, []);
  t.match(empty.body.metadata, {
    count: 0,
    current_page: 1,
    total_count: 0,
    total_pages: 0,
    per: 50,
    next_page_url: null,
  });

  const recorded = [];
  for (let i = 0; i < 4; i++) recorded.push(...(await recordEvents(laurel.db, organization.id, 30)));
  // Concurrent writers: the per-organization counter keeps numbers dense and the total right.
  const concurrent = await Promise.all(Array.from({ length: 6 }, () => recordEvents(laurel.db, organization.id, 5)));
  const total = recorded.length + concurrent.flat().length;
  t.equal(total, 150);

  const pages = [];
  for (let page = 1; page <= 3; page++) {
    const res = await api(`${base}?page=${page}`, auth);
    t.equal(res.status, 200);
    t.match(res.body.metadata, { count: 50, current_page: page, total_count: 150, total_pages: 3, per: 50 });
    pages.push(...res.body.data);
  }
  const ids = pages.map((e: { id: string }) => e.id);
  t.equal(new Set(ids).size, 150, "every event exactly once across the pages");
  t.same(new Set(ids), new Set([...recorded, ...concurrent.flat()].map((e) => e.id)), "and exactly the recorded ones");
  t.same(
    ids.slice(100),
    recorded
      .slice(0, 50)
      .map((e) => e.id)
      .reverse(),
    "newest first: the first recorded come last",
  );

  const first = await api(base, auth);
  t.equal(first.body.metadata.next_page_url, `${laurel.baseUrl}${base}?page=2`);
  t.equal(first.body.metadata.previous_page_url, null);
  const past = await api(`${base}?page=9`, auth);
  t.equal(past.status, 200);
  t.same(past.body.data, []);
  t.match(past.body.metadata, { count: 0, total_count: 150, next_page_url: null });
  t.equal(past.body.metadata.previous_page_url, `${laurel.baseUrl}${base}?page=3`);

  for (const bad of ["0", "-1", "x", "1.5", "1000001"]) {
    t.equal((await api(`${base}?page=${bad}`, auth)).status, 400, `page=${bad} is refused`);
  }
});

t.test("the detail of an event, and who may read it", async (t) => {
  const a = await laurel.createOrganization("Reader A");
  const b = await laurel.createOrganization("Reader B");
  const authA = basic(a.authorization_token.token);
  const [event] = await recordEvents(laurel.db, a.organization.id, 1, "badge.state.changed");
  const id = (event as { id: string }).id;
  const path = `/organizations/${a.organization.id}/events/${id}`;

  const got = await api(path, authA);
  t.equal(got.status, 200);
  t.same(got.body.metadata, {});
  t.same(got.body.data, {
    id,
    organization_id: a.organization.id,
    event_type: "badge.state.changed",
    occurred_at: (event as { occurred_at: Date }).occurred_at.toISOString(),
    badge: BADGE,
  });
  const listed = await api(`/organizations/${a.organization.id}/events`, authA);
  t.same(listed.body.data[0], got.body.data, "list items are the same details");

  t.equal((await api(path, null)).status, 401, "no credential");
  t.equal((await api(path, basic(b.authorization_token.token))).status, 403, "another organization's credential");
  t.equal(
    (await api(`/organizations/${b.organization.id}/events/${id}`, basic(b.authorization_token.token))).status,
    404,
    "another organization's event",
  );
  t.equal((await api(`/organizations/${a.organization.id}/events/${uuidv7()}`, authA)).status, 404);
  t.equal((await api(`/organizations/${a.organization.id}/events/not-a-uuid`, authA)).status, 400);

  // An authorization token without read_enabled.
  const created = await fetch(`${laurel.baseUrl}/organizations/${a.organization.id}/authorization_tokens`, {
    method: "POST",
    headers: { authorization: authA, "content-type": "application/json" },
    body: JSON.stringify({ read_enabled: false }),
  });
  const writeOnly = basic(((await created.json()) as { data: { token: string } }).data.token);
  t.equal((await api(path, writeOnly)).status, 403, "read_enabled is required");

  // OAuth: the `events` scope is required.
  const appRes = await fetch(`${laurel.baseUrl}/organizations/${a.organization.id}/oauth_applications`, {
    method: "POST",
    headers: { authorization: authA, "content-type": "application/json" },
    body: JSON.stringify({ name: "reader" }),
  });
  const app = ((await appRes.json()) as { data: { uid: string; secret: string } }).data;
  const bearer = (scope: string) => clientBearer(laurel.authUrl, app, scope);
  t.equal((await api(path, await bearer("events"))).status, 200, "an access token with `events`");
  t.equal((await api(path, await bearer("issued_badges"))).status, 403, "without it");
});
