import { Migration } from "@mikro-orm/migrations";

/**
 * The keyed digest of the token in a pending badge's notification link. Only that link's holder
 * sees the badge's recipient on the accept page without signing in; the token itself is never
 * stored. Badges issued before have none: their accept page shows nothing personal.
 */
export class M20261127017BadgeAcceptTokens extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table badges add column accept_token_digest text");
  }
}
