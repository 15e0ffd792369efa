import { Migration } from "@mikro-orm/migrations";

/**
 * The earner's export ("Download everything"): a request a worker takes (leased, so a worker that
 * dies leaves it to another), the ZIP it writes as numbered chunks (streamed in and out, never
 * whole in memory), and the link's token kept only as a digest, with its expiry.
 */
export class M20261127026EarnerExports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table earner_exports (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      state text not null check (state in ('pending', 'ready', 'failed')),
      lease_until timestamptz(3),
      attempts integer not null default 0,
      token_digest text,
      size_bytes bigint,
      created_at timestamptz(3) not null,
      ready_at timestamptz(3),
      expires_at timestamptz(3)
    )`);
    this.addSql("create index earner_exports_pending on earner_exports (created_at) where state = 'pending'");
    this.addSql("create index earner_exports_user on earner_exports (user_id, created_at)");
    this.addSql(`create table earner_export_chunks (
      export_id uuid not null references earner_exports(id) on delete cascade,
      seq integer not null,
      bytes bytea not null,
      primary key (export_id, seq)
    )`);
  }

  override async down(): Promise<void> {
    this.addSql("drop table earner_export_chunks");
    this.addSql("drop table earner_exports");
  }
}
