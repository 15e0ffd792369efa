import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** The high-volume badge feed on real PostgreSQL: every badge once, in order, filters, cursor errors. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

t.test("the feed gives every matching badge once, in issue order, 50 a page, with no totals", async (t) => {
  const org = await organization(laurel, "Feed Org");
  const other = await organization(laurel, "Other Feed Org");
  const tpl = await createTemplate(laurel, org, { allow_duplicate_badges: true });
  const otherTpl = await createTemplate(laurel, other);
  const items = Array.from({ length: 120 }, (_, i) => issueBody(tpl.id, { recipient_email: `f${i}@example.org` }));
  for (let i = 0; i < items.length; i += 100)
    t.equal((await api("POST", `${org.badges}/batch`, org.auth, { badges: items.slice(i, i + 100) })).status, 201);
  await api("POST", other.badges, other.auth, issueBody(otherTpl.id));
  const listed = (await api("GET", `${org.badges}?sort=issued_at&page=1`, org.auth)).body.data;
  await api("PUT", `${org.badges}/${listed[3].id}/revoke`, org.auth, { reason: "Wrong person" });

  const feed = `/organizations/${org.id}/high_volume_issued_badge_search`;
  const walk = async (first: string) => {
    const ids: string[] = [];
    const metas: unknown[] = [];
    let url: string | null = first;
    while (url) {
      const res = await api("GET", url, org.auth);
      t.equal(res.status, 200, url);
      ids.push(...res.body.data.map((b: { id: string }) => b.id));
      metas.push(res.body.metadata);
      url = res.body.metadata.next_page_url;
    }
    return { ids, metas };
  };
  const all = await walk(feed);
  t.equal(all.ids.length, 120);
  t.equal(new Set(all.ids).size, 120, "no badge twice");
  t.same(all.ids, [...all.ids].sort(), "id order");
  t.match(all.metas, [{ count: 50, per: 50 }, { count: 50 }, { count: 20, next_page_url: null }]);
  t.notOk("total_count" in (all.metas[0] as object), "no totals");

  const revoked = await walk(`${feed}?filter=state::revoked`);
  t.same(revoked.ids, [listed[3].id]);
  const pending = await walk(`${feed}?filter[state]=pending&recipient_email_all=f0@example.org,f119@example.org`);
  t.equal(pending.ids.length, 2);
  const firstPage = await api("GET", `${feed}?state=pending`, org.auth);
  const next = new URL(firstPage.body.metadata.next_page_url);
  t.equal(next.searchParams.get("state"), "pending", "the next page keeps the filters");
  t.match(next.searchParams.get("cursor"), /^c1[0-9a-f]{32}$/);

  for (const [query, field] of [
    ["cursor=abc", "cursor"],
    ["filter=colour::red", "filter"],
  ]) {
    const res = await api("GET", `${feed}?${query}`, org.auth);
    t.equal(res.status, 400, query);
    t.equal(res.body.data.errors[0].field, field);
  }
  // The feed has one order and no page numbers: those parameters, and unknown ones, change nothing.
  for (const query of ["sort=issued_at", "page=2", "colour=red"]) {
    const res = await api("GET", `${feed}?${query}`, org.auth);
    t.equal(res.status, 200, query);
    t.equal(res.headers.get("laurel-ignored-parameters"), query.split("=")[0], `${query}: named as ignored`);
    t.same(
      res.body.data.map((b: { id: string }) => b.id),
      (await api("GET", feed, org.auth)).body.data.map((b: { id: string }) => b.id),
    );
  }
  t.equal((await api("GET", feed, other.auth)).status, 403, "another organization's feed");
  t.equal((await api("GET", feed, null)).status, 401);
});
