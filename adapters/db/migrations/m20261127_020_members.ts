import { Migration } from "@mikro-orm/migrations";
import { ORGANIZATION_RECORD_KEYS } from "./columns.ts";

/**
 * An organization's people: memberships of earner accounts with one role each, invitations
 * (only their token's keyed digest), and the audit log of member and credential changes, read
 * newest first in keyset pages. SQL valid on PostgreSQL 15 and PGlite.
 */
export class M20261127020Members extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table memberships (
      ${ORGANIZATION_RECORD_KEYS},
      user_id uuid not null references users(id) on delete cascade,
      role text not null check (role in ('owner', 'admin', 'issuer', 'viewer')),
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      unique (organization_id, user_id)
    )`);
    // An account's organizations (the console's first page, every console request's role).
    this.addSql("create index memberships_user_idx on memberships (user_id)");
    this.addSql(`create table member_invitations (
      ${ORGANIZATION_RECORD_KEYS},
      email text not null,
      email_key text not null,
      role text not null check (role in ('owner', 'admin', 'issuer', 'viewer')),
      token_digest text not null unique,
      invited_by_kind text not null,
      invited_by_id text null,
      invited_by_name text not null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      unique (organization_id, email_key)
    )`);
    this.addSql("create index member_invitations_expiry_idx on member_invitations (expires_at)");
    this.addSql(`create table audit_log (
      ${ORGANIZATION_RECORD_KEYS},
      occurred_at timestamptz(3) not null,
      actor_kind text not null check (actor_kind in ('member', 'authorization_token', 'oauth_application', 'operator')),
      actor_id text null,
      action text not null,
      target text null,
      client_address text null,
      details jsonb not null default '{}'::jsonb
    )`);
    this.addSql("create index audit_log_page_idx on audit_log (organization_id, occurred_at desc, id desc)");
    // Retention removes the oldest rows in small batches by this index.
    this.addSql("create index audit_log_age_idx on audit_log (occurred_at)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table audit_log");
    this.addSql("drop table member_invitations");
    this.addSql("drop table memberships");
  }
}
