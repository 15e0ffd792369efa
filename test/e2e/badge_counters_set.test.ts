import pg from "pg";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { startLaurel } from "../support/laurel.ts";

/**
 * The dashboard counters kept per statement: exact after statements that insert, update and
 * delete many badges of two weeks at once, none back for a deleted organization, and no deadlock
 * between transactions changing one organization's badges in opposite orders.
 */

const laurel = await startLaurel();
t.teardown(() => laurel.close());
const api = apiClient(laurel);
const url = (laurel.database as { url: string }).url;

const mismatch = async (organizationId: string): Promise<unknown[]> =>
  laurel.db.all(
    `with s as (select state, count(*)::int as n from badges where organization_id = ? group by state),
     w as (select week, sum(i)::int as issued, sum(a)::int as accepted from (
       select badge_week(issued_at) as week, 1 as i, 0 as a from badges where organization_id = ?
       union all select badge_week(state_updated_at), 0, 1 from badges where organization_id = ? and state = 'accepted'
     ) x group by week)
     select 'state' as k, coalesce(s.state, c.state) as key, s.n as expected, c.n::int as counted
       from s full join (select state, n from badge_state_counts where organization_id = ? and n <> 0) c on c.state = s.state
       where s.n is distinct from c.n::int
     union all
     select 'week', coalesce(w.week, c.week)::text, w.issued, c.issued::int
       from w full join (select * from badge_week_counts where organization_id = ? and (issued <> 0 or accepted <> 0)) c
         on c.week = w.week
       where (w.issued, w.accepted) is distinct from (c.issued::int, c.accepted::int)`,
    [organizationId, organizationId, organizationId, organizationId, organizationId],
  );

// Copies of a badge issued by the API, n at once in one statement, issued over two weeks.
const copies = (organizationId: string, n: number): Promise<unknown> =>
  laurel.db.run(
    `insert into badges select (jsonb_populate_record(null::badges, to_jsonb(b) || jsonb_build_object(
       'id', gen_random_uuid(), 'status_index', null, 'recipient_email_key', b.recipient_email_key || g,
       'issued_at', b.issued_at - (g % 2) * interval '8 days', 'state_updated_at', b.issued_at - (g % 2) * interval '8 days'))).*
     from (select * from badges where organization_id = ? limit 1) b, generate_series(1, ?) g`,
    [organizationId, n],
  );

t.test("counters equal COUNT(*) after statements of many badges, none back after deletion", async (t) => {
  const org = await organization(laurel, "Counted Org");
  const tpl = await createTemplate(laurel, org);
  for (let i = 0; i < 3; i++)
    t.equal(
      (await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: `c${i}@x.example` }))).status,
      201,
    );
  await copies(org.id, 60);
  t.same(await mismatch(org.id), [], "after one insert of 60 badges over two weeks");
  await laurel.db.run(
    `update badges set state = 'accepted', state_updated_at = issued_at + interval '1 day'
     where organization_id = ? and status_index % 2 = 0`,
    [org.id],
  );
  t.same(await mismatch(org.id), [], "after accepting about half in one statement");
  await laurel.db.run(
    "update badges set state = 'revoked', state_updated_at = now() where organization_id = ? and status_index % 3 = 0",
    [org.id],
  );
  await laurel.db.run("update badges set updated_at = now() where organization_id = ?", [org.id]);
  t.same(await mismatch(org.id), [], "after revoking a third and touching every badge");
  await laurel.db.run("delete from badges where organization_id = ? and status_index % 5 = 0", [org.id]);
  t.same(await mismatch(org.id), [], "after deleting a fifth");
  const states = await laurel.db.all<{ n: unknown }>(
    "select sum(n) as n from badge_state_counts where organization_id = ?",
    [org.id],
  );
  t.ok(Number(states[0]?.n) > 30, "the counters count the badges");
  await laurel.db.run("delete from organizations where id = ?", [org.id]);
  const left = await laurel.db.all(
    `select organization_id from badge_state_counts where organization_id = ?
     union all select organization_id from badge_week_counts where organization_id = ?`,
    [org.id, org.id],
  );
  t.same(left, [], "a deleted organization gets no counter row back");
});

t.test("transactions changing one organization's badges in opposite orders do not deadlock", async (t) => {
  const org = await organization(laurel, "Busy Org");
  const tpl = await createTemplate(laurel, org);
  t.equal((await api("POST", org.badges, org.auth, issueBody(tpl.id))).status, 201);
  await copies(org.id, 20);
  const ids = (
    await laurel.db.all<{ id: string }>("select id from badges where organization_id = ? order by id", [org.id])
  ).map((r) => r.id);
  const clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  for (const c of clients) await c.connect();
  t.teardown(() => Promise.all(clients.map((c) => c.end())));
  // Each round: one side changes two badges one statement at a time, then bumps the event counter
  // as its appended event does; the other issues (its status pick takes the event counter), then changes two other
  // badges in the opposite state order. Their counter rows are taken in opposite orders.
  const states = ["accepted", "pending", "rejected"];
  for (let round = 0; round < 150; round++) {
    const half = Math.floor(ids.length / 2);
    const [a, b] = [ids[round % half], ids[(round * 7 + 3) % half]];
    const [x, y] = [ids[half + (round % half)], ids[half + ((round * 5 + 1) % half)]];
    const change = async (c: pg.Client, first: string, second: string): Promise<void> => {
      await c.query("begin");
      for (const id of [first, second])
        await c.query("update badges set state = $1, state_updated_at = now() where id = $2", [states[round % 3], id]);
      await c.query("update event_counts set total = total where organization_id = $1", [org.id]);
      await c.query("commit");
    };
    const issue = async (c: pg.Client): Promise<void> => {
      await c.query("begin");
      await c.query(
        `insert into badges select (jsonb_populate_record(null::badges, to_jsonb(b) || jsonb_build_object('id', gen_random_uuid(),
           'status_index', null, 'recipient_email_key', b.recipient_email_key || $2::text))).*
         from (select * from badges where organization_id = $1 limit 1) b`,
        [org.id, `r${round}`],
      );
      await c.query(
        "update badges set state = case when id = $1 then 'revoked' else $3 end, state_updated_at = now() where id in ($1, $2)",
        [y, x, states[round % 3]],
      );
      await c.query("commit");
    };
    const [first, second] = clients as [pg.Client, pg.Client];
    await Promise.all([change(first, a as string, b as string), issue(second)]);
  }
  t.same(await mismatch(org.id), [], "counters exact after the rounds");
});
