import { Migration } from "@mikro-orm/migrations";
import { ORGANIZATION_RECORD_KEYS } from "./columns.ts";

/** Organizations, OAuth applications and authorization tokens. SQL valid on PostgreSQL 15. */
export class M20261122001Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table organizations (
      id uuid primary key,
      name text not null,
      description text null,
      email text null,
      website_url text null,
      image_url text null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null
    )`);
    this.addSql(`create table oauth_applications (
      id serial primary key,
      organization_id uuid not null references organizations(id) on delete cascade,
      name text not null,
      description text null,
      uid text not null unique,
      secret_digest text not null,
      created_by_id text not null,
      created_by_type text not null,
      created_by_name text not null,
      data_services_enabled boolean not null default false,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      last_used_at timestamptz(3) null,
      last_successfully_used_at timestamptz(3) null
    )`);
    this.addSql("create index oauth_applications_org_idx on oauth_applications (organization_id, id desc)");
    this.addSql(`create table authorization_tokens (
      ${ORGANIZATION_RECORD_KEYS},
      description text not null,
      token_digest text not null unique,
      token_sealed text not null,
      read_enabled boolean not null,
      write_enabled boolean not null,
      delete_enabled boolean not null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      revoked_at timestamptz(3) null,
      last_used_at timestamptz(3) null,
      last_successfully_used_at timestamptz(3) null
    )`);
    this.addSql(
      "create index authorization_tokens_org_idx on authorization_tokens (organization_id, created_at desc, id desc)",
    );
  }

  override async down(): Promise<void> {
    this.addSql("drop table authorization_tokens");
    this.addSql("drop table oauth_applications");
    this.addSql("drop table organizations");
  }
}
