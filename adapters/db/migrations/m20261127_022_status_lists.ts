import { Migration } from "@mikro-orm/migrations";

/**
 * Bitstring status lists of OB 3.0 credentials. Every badge holds a `status_index` in its
 * organization's lists (list = index / 131072, bit = index % 131072), picked at random among the
 * indexes never used, so an index tells nothing about when a badge was issued. The pick runs in a
 * trigger of the insert itself: batched issues stay one statement. The organization's row in
 * `badge_status_lists` is locked by the pick, which serializes picks of one organization (its
 * issues already serialize on its event counter, which the pick locks first so that every
 * transaction takes the two rows in the same order), and the lists grow by one whenever half their
 * entries are taken, so a pick needs two tries on average. A deleted badge's index goes to
 * `badge_status_retired` (no foreign key: an organization's deletion deletes its badges, which
 * retire their indexes): its bit stays set and is never handed out again.
 */
export class M20261127022StatusLists extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table badge_status_lists (
      organization_id uuid primary key references organizations(id) on delete cascade,
      lists int not null default 1,
      assigned int not null default 0
    )`);
    this.addSql(`create table badge_status_retired (
      organization_id uuid not null,
      status_index int not null,
      primary key (organization_id, status_index)
    )`);
    this.addSql("alter table badges add column status_index int");
    // Existing badges: a random order of each organization's badges numbers them.
    this.addSql(`update badges b set status_index = x.n from (
      select id, (row_number() over (partition by organization_id order by random()) - 1)::int as n from badges
    ) x where x.id = b.id`);
    this.addSql(`insert into badge_status_lists (organization_id, lists, assigned)
      select organization_id, (count(*) * 2 / 131072 + 1)::int, count(*)::int from badges group by organization_id`);
    this.addSql("alter table badges alter column status_index set not null");
    this.addSql("create unique index badges_status_index_idx on badges (organization_id, status_index)");
    this.addSql(
      "create index badges_revoked_status_idx on badges (organization_id, status_index) where state = 'revoked'",
    );
    this.addSql(`create function badge_status_assign() returns trigger language plpgsql as $$
      declare
        n int;
        pick int;
      begin
        if new.status_index is not null then return new; end if;
        -- The event counter first, as every issue takes it: two rows locked in one order.
        perform 1 from event_counts where organization_id = new.organization_id for update;
        insert into badge_status_lists as l (organization_id, lists, assigned) values (new.organization_id, 1, 1)
          on conflict (organization_id) do update
            set assigned = l.assigned + 1,
                lists = case when (l.assigned + 1) * 2 > l.lists * 131072 then l.lists + 1 else l.lists end
          returning lists into n;
        loop
          pick := floor(random() * n * 131072)::int;
          exit when not exists (select 1 from badges where organization_id = new.organization_id and status_index = pick)
            and not exists (select 1 from badge_status_retired
                            where organization_id = new.organization_id and status_index = pick);
        end loop;
        new.status_index := pick;
        return new;
      end $$`);
    this.addSql(
      "create trigger badge_status_assign before insert on badges for each row execute function badge_status_assign()",
    );
    this.addSql(`create function badge_status_retire() returns trigger language plpgsql as $$
      begin
        insert into badge_status_retired (organization_id, status_index) values (old.organization_id, old.status_index)
          on conflict do nothing;
        return null;
      end $$`);
    this.addSql(
      "create trigger badge_status_retire after delete on badges for each row execute function badge_status_retire()",
    );
  }
}
