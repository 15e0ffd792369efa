import { Migration } from "@mikro-orm/migrations";

/**
 * Platforms that register themselves through the Open Badges API (RFC 7591): they belong to no
 * organization, so an earner's grant names either an organization's application or a platform.
 * Secrets are kept as keyed digests only. A removed platform takes its grants, codes and token
 * families with it. SQL valid on PostgreSQL 15 and PGlite.
 */
export class M20261207037ObApiPlatforms extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table ob_platforms (
      id bigint generated always as identity primary key,
      client_id text not null unique,
      secret_digest text not null,
      client_name text not null,
      client_uri text not null,
      logo_uri text not null,
      tos_uri text not null,
      policy_uri text not null,
      software_id text not null,
      software_version text not null,
      redirect_uris text not null,
      scopes text not null,
      contacts text not null,
      created_at timestamptz(3) not null
    )`);
    this.addSql(`alter table connect_grants
      alter column application_id drop not null,
      alter column organization_id drop not null,
      add column platform_id bigint null references ob_platforms(id) on delete cascade,
      add column private_badges boolean not null default false,
      add constraint connect_grants_one_client check ((application_id is null) <> (platform_id is null))`);
    this.addSql(
      "create unique index connect_grants_active_platform_idx on connect_grants (user_id, platform_id) where revoked_at is null and platform_id is not null",
    );
    this.addSql(`alter table connect_codes
      alter column application_id drop not null,
      add column platform_id bigint null`);
  }

  override async down(): Promise<void> {
    this.addSql("alter table connect_codes drop column platform_id");
    this.addSql("delete from connect_grants where platform_id is not null");
    this.addSql("drop index connect_grants_active_platform_idx");
    this.addSql(
      "alter table connect_grants drop constraint connect_grants_one_client, drop column private_badges, drop column platform_id",
    );
    this.addSql("drop table ob_platforms");
  }
}
