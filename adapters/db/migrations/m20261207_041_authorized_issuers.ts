import { Migration } from "@mikro-orm/migrations";

/**
 * Authorized issuers: an organization (the grantor) authorizes another (the issuer) to issue all
 * or some of its badge templates on its behalf. The partial unique index keeps one live (pending
 * or accepted) authorization per grantor and issuer, so two requests at once cannot both grant one.
 * A badge issued on a grantor's behalf belongs to the grantor (`organization_id`) and names the
 * organization that issued it (`issued_by_organization_id`; null for the owner's own badges), which
 * lists it too through the partial index. An organization deleted takes its authorizations along;
 * the badges it issued for others stay the grantors', without the name of their issuer.
 */
export class M20261207041AuthorizedIssuers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table issuer_authorizations (
      id uuid primary key,
      grantor_id uuid not null references organizations(id) on delete cascade,
      issuer_id uuid not null references organizations(id) on delete cascade,
      state text not null check (state in ('pending', 'accepted', 'ended')),
      all_templates boolean not null,
      badge_template_ids jsonb not null default '[]'::jsonb,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      accepted_at timestamptz(3) null,
      ended_at timestamptz(3) null,
      ended_by text null check (ended_by in ('grantor', 'issuer')),
      check (grantor_id <> issuer_id)
    )`);
    this.addSql(`create unique index issuer_authorizations_live_idx on issuer_authorizations (grantor_id, issuer_id)
      where state in ('pending', 'accepted')`);
    this.addSql(
      "create index issuer_authorizations_grantor_idx on issuer_authorizations (grantor_id, created_at desc, id desc)",
    );
    this.addSql(
      "create index issuer_authorizations_issuer_idx on issuer_authorizations (issuer_id, created_at desc, id desc)",
    );
    this.addSql(
      "alter table badges add column issued_by_organization_id uuid null references organizations(id) on delete set null",
    );
    this.addSql(`create index badges_issued_by_idx on badges (issued_by_organization_id, issued_at desc, id desc)
      where issued_by_organization_id is not null`);
  }

  override async down(): Promise<void> {
    this.addSql("drop index badges_issued_by_idx");
    this.addSql("alter table badges drop column issued_by_organization_id");
    this.addSql("drop table issuer_authorizations");
  }
}
