import { Migration } from "@mikro-orm/migrations";

/**
 * Images Laurel stores itself (an organization's issuer image), named by the SHA-256 of their
 * bytes: the same file uploaded twice is one row, and an address never changes what it serves, so
 * it is cached as immutable.
 */
export class M20261127021Images extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table images (
      sha256 text primary key,
      content_type text not null,
      bytes bytea not null,
      created_at timestamptz(3) not null
    )`);
  }

  override async down(): Promise<void> {
    this.addSql("drop table images");
  }
}
