import { Migration } from "@mikro-orm/migrations";

/**
 * An OAuth application records the ceiling of the credential that created it (its read, write and
 * delete flags, and its scopes when an access token created it) and an optional list of the scopes
 * it may be granted. Applications made before this were not recorded with their creator's
 * ceiling: they get the full one, so nothing that works today stops (docs/decisions.md).
 */
export class M20261125007ApplicationCeilings extends Migration {
  override async up(): Promise<void> {
    for (const flag of ["read", "write", "delete"]) {
      this.addSql(`alter table oauth_applications add column ceiling_${flag}_enabled boolean not null default true`);
      this.addSql(`alter table oauth_applications alter column ceiling_${flag}_enabled drop default`);
    }
    this.addSql("alter table oauth_applications add column ceiling_scopes text null");
    this.addSql("alter table oauth_applications add column scopes text null");
  }

  override async down(): Promise<void> {
    for (const column of [
      "ceiling_read_enabled",
      "ceiling_write_enabled",
      "ceiling_delete_enabled",
      "ceiling_scopes",
      "scopes",
    ]) {
      this.addSql(`alter table oauth_applications drop column ${column}`);
    }
  }
}
