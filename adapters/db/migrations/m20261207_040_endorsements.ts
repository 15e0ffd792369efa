import { Migration } from "@mikro-orm/migrations";

/**
 * Endorsements between organizations: of a badge template or of an organization itself. The
 * partial unique index keeps one live (pending or accepted) endorsement per endorser and target,
 * so two requests at once cannot both create one. The target has no foreign key (it names a
 * template or an organization); both organizations' rows go with either organization.
 */
export class M20261207040Endorsements extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table endorsements (
      id uuid primary key,
      endorser_id uuid not null references organizations(id) on delete cascade,
      endorsed_id uuid not null references organizations(id) on delete cascade,
      target_kind text not null check (target_kind in ('badge_template', 'organization')),
      target_id uuid not null,
      comment text not null,
      state text not null check (state in ('pending', 'accepted', 'rejected', 'withdrawn')),
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      accepted_at timestamptz(3) null,
      check (endorser_id <> endorsed_id)
    )`);
    this.addSql(`create unique index endorsements_live_idx on endorsements (endorser_id, target_kind, target_id)
      where state in ('pending', 'accepted')`);
    this.addSql("create index endorsements_given_idx on endorsements (endorser_id, created_at desc, id desc)");
    this.addSql("create index endorsements_received_idx on endorsements (endorsed_id, created_at desc, id desc)");
    this.addSql(
      "create index endorsements_target_idx on endorsements (target_kind, target_id) where state = 'accepted'",
    );
  }

  override async down(): Promise<void> {
    this.addSql("drop table endorsements");
  }
}
