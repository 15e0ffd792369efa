import { Migration } from "@mikro-orm/migrations";

/**
 * Earners on the web: sign-in and confirmation links (only their token's digest), sessions, and
 * the account's public profile, vanity name and closing (a merged account is closed, not deleted,
 * so events naming it keep meaning something). SQL valid on PostgreSQL 15 and PGlite.
 */
export class M20261125010EarnerWeb extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table users add column public_profile boolean not null default false");
    this.addSql("alter table users add column vanity_name text null");
    this.addSql("alter table users add column closed_at timestamptz(3) null");
    this.addSql("alter table users add column merged_into_user_id uuid null");
    this.addSql(
      "create unique index users_vanity_name_idx on users (lower(vanity_name)) where vanity_name is not null",
    );
    this.addSql(`create table earner_links (
      token_hash text primary key,
      purpose text not null check (purpose in ('sign_in', 'add_email', 'merge')),
      email text not null,
      email_key text not null,
      user_id uuid null references users(id) on delete cascade,
      next_path text null,
      client_key text null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      used_at timestamptz(3) null
    )`);
    // The request limits count recent links per address and per client.
    this.addSql("create index earner_links_email_idx on earner_links (email_key, created_at)");
    this.addSql(
      "create index earner_links_client_idx on earner_links (client_key, created_at) where client_key is not null",
    );
    this.addSql(`create table earner_sessions (
      token_hash text primary key,
      user_id uuid not null references users(id) on delete cascade,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      revoked_at timestamptz(3) null
    )`);
    this.addSql("create index earner_sessions_user_idx on earner_sessions (user_id) where revoked_at is null");
  }

  override async down(): Promise<void> {
    this.addSql("drop table earner_sessions");
    this.addSql("drop table earner_links");
    this.addSql("drop index users_vanity_name_idx");
    this.addSql(
      "alter table users drop column public_profile, drop column vanity_name, drop column closed_at, drop column merged_into_user_id",
    );
  }
}
