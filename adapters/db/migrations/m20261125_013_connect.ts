import { Migration } from "@mikro-orm/migrations";

/**
 * Connect: an earner grants an organization's application access to their own data through the
 * authorization code flow. Applications register the redirect URIs they may be sent back to;
 * grants, single-use codes, token families and refresh tokens are kept, codes and refresh tokens
 * only as keyed digests. SQL valid on PostgreSQL 15 and PGlite.
 */
export class M20261125013Connect extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table oauth_applications add column redirect_uris text not null default ''");
    this.addSql(`create table connect_grants (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      application_id bigint not null references oauth_applications(id) on delete cascade,
      organization_id uuid not null,
      scopes text not null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      revoked_at timestamptz(3) null
    )`);
    // One standing grant per earner and application; removed ones stay as history.
    this.addSql(
      "create unique index connect_grants_active_idx on connect_grants (user_id, application_id) where revoked_at is null",
    );
    this.addSql(`create table connect_codes (
      digest text primary key,
      grant_id uuid not null references connect_grants(id) on delete cascade,
      user_id uuid not null,
      application_id bigint not null,
      redirect_uri text not null,
      code_challenge text not null,
      scopes text not null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      used_at timestamptz(3) null,
      session_id uuid null
    )`);
    this.addSql(`create table connect_sessions (
      id uuid primary key,
      grant_id uuid not null references connect_grants(id) on delete cascade,
      scopes text not null,
      created_at timestamptz(3) not null,
      revoked_at timestamptz(3) null
    )`);
    this.addSql("create index connect_sessions_grant_idx on connect_sessions (grant_id)");
    this.addSql(`create table connect_refresh_tokens (
      digest text primary key,
      session_id uuid not null references connect_sessions(id) on delete cascade,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      used_at timestamptz(3) null
    )`);
  }

  override async down(): Promise<void> {
    for (const table of ["connect_refresh_tokens", "connect_sessions", "connect_codes", "connect_grants"]) {
      this.addSql(`drop table ${table}`);
    }
    this.addSql("alter table oauth_applications drop column redirect_uris");
  }
}
