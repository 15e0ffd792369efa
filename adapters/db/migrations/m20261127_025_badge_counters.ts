import { Migration } from "@mikro-orm/migrations";

/**
 * The console's dashboard counters, so it reads a handful of rows however many badges an
 * organization has: badges per state, and per week (Monday, UTC) the badges issued that week
 * (by `issued_at`) and those accepted that week and still accepted (by `state_updated_at`).
 *
 * A deferred constraint trigger keeps them: it runs at commit, inside the transaction of the
 * change, after the statement that bumped `event_counts`. Every badge change appends an event of
 * its organization and holds that row's lock to commit, so the counter rows of an organization are
 * only ever locked by the one transaction holding it: no deadlock with the event counter, whatever
 * order a transaction changed its badges in. An organization deleted meanwhile gets no row back.
 *
 * Also an index of the events about one badge, for the badge's page in the console.
 */
export class M20261127025BadgeCounters extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table badge_state_counts (
      organization_id uuid not null references organizations(id) on delete cascade,
      state text not null,
      n bigint not null,
      primary key (organization_id, state)
    )`);
    this.addSql(`create table badge_week_counts (
      organization_id uuid not null references organizations(id) on delete cascade,
      week date not null,
      issued bigint not null,
      accepted bigint not null,
      primary key (organization_id, week)
    )`);
    this.addSql(`create function badge_week(at timestamptz) returns date language sql immutable as
      $$ select date_trunc('week', at at time zone 'UTC')::date $$`);
    this.addSql(`create function badge_counts_add(org uuid, st text, issued timestamptz, changed timestamptz, d integer)
      returns void language plpgsql as $$
      begin
        insert into badge_state_counts as c (organization_id, state, n)
          select org, st, d where exists (select 1 from organizations where id = org)
          on conflict (organization_id, state) do update set n = c.n + excluded.n;
        insert into badge_week_counts as c (organization_id, week, issued, accepted)
          select org, badge_week(issued), d, 0 where exists (select 1 from organizations where id = org)
          on conflict (organization_id, week) do update set issued = c.issued + excluded.issued;
        if st = 'accepted' then
          insert into badge_week_counts as c (organization_id, week, issued, accepted)
            select org, badge_week(changed), 0, d where exists (select 1 from organizations where id = org)
            on conflict (organization_id, week) do update set accepted = c.accepted + excluded.accepted;
        end if;
      end $$`);
    this.addSql(`create function badge_counts_follow() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          perform badge_counts_add(old.organization_id, old.state, old.issued_at, old.state_updated_at, -1);
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform badge_counts_add(new.organization_id, new.state, new.issued_at, new.state_updated_at, 1);
        end if;
        return null;
      end $$`);
    this.addSql(`create constraint trigger badge_counts_insert_delete after insert or delete on badges
      deferrable initially deferred for each row execute function badge_counts_follow()`);
    this.addSql(`create constraint trigger badge_counts_update after update on badges
      deferrable initially deferred for each row
      when (old.state is distinct from new.state or old.issued_at is distinct from new.issued_at
        or old.state_updated_at is distinct from new.state_updated_at
        or old.organization_id is distinct from new.organization_id)
      execute function badge_counts_follow()`);
    this.addSql(`insert into badge_state_counts (organization_id, state, n)
      select organization_id, state, count(*) from badges group by organization_id, state`);
    this.addSql(`insert into badge_week_counts (organization_id, week, issued, accepted)
      select organization_id, week, sum(issued), sum(accepted) from (
        select organization_id, badge_week(issued_at) as week, 1 as issued, 0 as accepted from badges
        union all
        select organization_id, badge_week(state_updated_at), 0, 1 from badges where state = 'accepted'
      ) x group by organization_id, week`);
    this.addSql(
      "create index events_badge_idx on events (organization_id, ((detail -> 'badge' ->> 'id')), id desc) where detail -> 'badge' is not null",
    );
  }
}
