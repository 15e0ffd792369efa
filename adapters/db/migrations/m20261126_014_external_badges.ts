import { Migration } from "@mikro-orm/migrations";

/**
 * Badges from other issuers that earners add to their accounts, with the outcome of their last
 * verification. What was read of the documents is kept as JSON (`details`): it is shown, never
 * queried. The re-verification worker takes due rows by `next_verification_at`.
 */
export class M20261126014ExternalBadges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table external_badges (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      source text not null,
      url text null,
      credential text null,
      source_key text not null,
      details jsonb not null,
      verification_status text not null,
      verification_reason text null,
      verified_at timestamptz(3) not null,
      next_verification_at timestamptz(3) not null,
      created_at timestamptz(3) not null
    )`);
    this.addSql("create unique index external_badges_source_idx on external_badges (user_id, source_key)");
    this.addSql("create index external_badges_due_idx on external_badges (next_verification_at)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table external_badges");
  }
}
