import { Migration } from "@mikro-orm/migrations";

/**
 * A version per organization and list, moved by every committed change to the list's rows, so a
 * process can tell, with one key lookup, whether a list body it made is still what a read would
 * give. A row trigger moves it in the transaction of the change: no write path (the API, the CLI,
 * a credential's recorded use, SQL by hand) can change the rows without moving it, and a change
 * becomes visible together with its version. An organization being deleted gets no row back.
 *
 * `oauth_applications`: the OAuth applications list.
 */
export class M20261128034ListVersions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table list_versions (
      organization_id uuid not null references organizations(id) on delete cascade,
      list text not null,
      version bigint not null,
      primary key (organization_id, list)
    )`);
    this.addSql(`create function list_version_move() returns trigger language plpgsql as $$
      declare
        org uuid;
      begin
        if tg_op = 'DELETE' then org := old.organization_id; else org := new.organization_id; end if;
        insert into list_versions as v (organization_id, list, version)
          select org, tg_argv[0], 1 where exists (select 1 from organizations where id = org)
          on conflict (organization_id, list) do update set version = v.version + 1;
        if tg_op = 'UPDATE' and old.organization_id is distinct from new.organization_id then
          insert into list_versions as v (organization_id, list, version)
            select old.organization_id, tg_argv[0], 1 where exists (select 1 from organizations where id = old.organization_id)
            on conflict (organization_id, list) do update set version = v.version + 1;
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger oauth_applications_list_version after insert or update or delete on oauth_applications
      for each row execute function list_version_move('oauth_applications')`);
  }

  override async down(): Promise<void> {
    this.addSql("drop trigger oauth_applications_list_version on oauth_applications");
    this.addSql("drop function list_version_move()");
    this.addSql("drop table list_versions");
  }
}
