import { Migration } from "@mikro-orm/migrations";

/**
 * Connect: an earner grants an organization's application access to their own data through the
 * authorization code flow. Applications register the redirect URIs they may be sent back to;
 * grants, codes and refresh tokens are kept, the secrets only as keyed digests.
 */
export class M20261125013Connect extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table oauth_applications add column redirect_uris text not null default ''");
  }

  override async down(): Promise<void> {
    this.addSql("alter table oauth_applications drop column redirect_uris");
  }
}
