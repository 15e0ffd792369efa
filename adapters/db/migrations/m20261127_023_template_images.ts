import { Migration } from "@mikro-orm/migrations";

/**
 * A template's own image, stored by Laurel: the name of its row in `images` (`<sha256>.<png|svg>`).
 * Beside `image_url`, which stays the outside address a client may give instead; at most one of
 * the two is set.
 */
export class M20261127023TemplateImages extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table badge_templates add column image text null check (image ~ '^[0-9a-f]{64}[.](png|svg)$')");
  }

  override async down(): Promise<void> {
    this.addSql("alter table badge_templates drop column image");
  }
}
