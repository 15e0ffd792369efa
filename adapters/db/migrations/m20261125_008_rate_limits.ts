import { Migration } from "@mikro-orm/migrations";

/**
 * Counters that every API process shares: failed authentications per client address and per
 * client id, and each organization's notification mail budget. One row per key and window; a row
 * whose window ended is reset by the next hit and swept now and then.
 */
export class M20261125008RateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table rate_limit_counters (
      key text primary key,
      hits integer not null,
      window_ends_at timestamptz not null
    )`);
    this.addSql("create index rate_limit_counters_window_ends_at on rate_limit_counters (window_ends_at)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table rate_limit_counters");
  }
}
