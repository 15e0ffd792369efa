import { Migration } from "@mikro-orm/migrations";
import { ORGANIZATION_RECORD_KEYS } from "./columns.ts";

/**
 * Badge templates, earners (users and their e-mail addresses) and issued badges.
 * SQL valid on PostgreSQL 15 (and so on PGlite). Lists are per organization, newest first, so
 * each sort has an index led by `organization_id`.
 */
export class M20261122003Badges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table badge_templates (
      ${ORGANIZATION_RECORD_KEYS},
      name text not null,
      description text not null,
      skills jsonb not null default '[]'::jsonb,
      image_url text null,
      url text null,
      vanity_slug text null,
      state text not null check (state in ('draft', 'active', 'archived')),
      public boolean not null,
      criteria_url text null,
      global_activity_url text null,
      alignments jsonb not null default '[]'::jsonb,
      allow_duplicate_badges boolean not null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null
    )`);
    this.addSql(
      "create index badge_templates_org_created_idx on badge_templates (organization_id, created_at desc, id desc)",
    );
    this.addSql("create index badge_templates_org_name_idx on badge_templates (organization_id, lower(name), id)");
    this.addSql(
      "create index badge_templates_org_state_idx on badge_templates (organization_id, state, created_at desc)",
    );
    // `skills` filter: the template has every listed skill (jsonb containment).
    this.addSql("create index badge_templates_skills_idx on badge_templates using gin (skills jsonb_path_ops)");
    this.addSql(
      "create unique index badge_templates_vanity_slug_idx on badge_templates (organization_id, lower(vanity_slug)) where vanity_slug is not null",
    );

    this.addSql(`create table users (
      id uuid primary key,
      first_name text not null,
      last_name text not null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null
    )`);
    // One account per address: the key is the normalized address (trimmed, lowercased).
    this.addSql(`create table user_emails (
      email_key text primary key,
      user_id uuid not null references users(id) on delete cascade,
      email text not null,
      position integer not null,
      confirmed boolean not null,
      created_at timestamptz(3) not null
    )`);
    this.addSql("create index user_emails_user_idx on user_emails (user_id, position)");

    this.addSql(`create table badges (
      ${ORGANIZATION_RECORD_KEYS},
      badge_template_id uuid not null references badge_templates(id),
      state text not null check (state in ('pending', 'accepted', 'rejected', 'revoked', 'replaced')),
      public boolean not null,
      issued_to_first_name text not null,
      issued_to_middle_name text null,
      issued_to_last_name text not null,
      recipient_email text not null,
      recipient_email_key text not null,
      exclusive boolean not null,
      issued_at timestamptz(3) not null,
      expires_at timestamptz(3) null,
      evidence jsonb not null default '[]'::jsonb,
      issuer_earner_id text null,
      locale text null,
      suppress_badge_notification_email boolean not null,
      revocation_reason text null,
      replaces_badge_id uuid null,
      replacement_badge_id uuid null,
      user_id uuid null references users(id) on delete set null,
      recipient_salt text not null,
      state_updated_at timestamptz(3) not null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null
    )`);
    // The duplicate rule, race-safe: at most one live badge per template and recipient among the
    // badges issued while the template refused duplicates. The states are LIVE_BADGE_STATES.
    this.addSql(
      "create unique index badges_live_recipient_idx on badges (badge_template_id, recipient_email_key) where exclusive and state in ('pending', 'accepted')",
    );
    this.addSql("create index badges_org_issued_idx on badges (organization_id, issued_at desc, id desc)");
    this.addSql("create index badges_org_created_idx on badges (organization_id, created_at desc, id desc)");
    this.addSql("create index badges_org_state_idx on badges (organization_id, state, issued_at desc, id desc)");
    // The template filter (a template belongs to one organization), badges_count and the foreign key.
    this.addSql("create index badges_template_idx on badges (badge_template_id, issued_at desc, id desc)");
    // The recipient filter, the duplicate check and linking badges to a new account.
    this.addSql("create index badges_recipient_idx on badges (recipient_email_key)");
    this.addSql("create index badges_user_idx on badges (user_id) where user_id is not null");
  }

  override async down(): Promise<void> {
    this.addSql("drop table badges");
    this.addSql("drop table user_emails");
    this.addSql("drop table users");
    this.addSql("drop table badge_templates");
  }
}
