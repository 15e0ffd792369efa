import { Migration } from "@mikro-orm/migrations";

/**
 * The issuer's own words in the pending-badge e-mail: a template's message for every badge it
 * issues, and a badge's own, given when it is issued, which takes its place (a resend says it again).
 */
export class M20261207039NotificationMessages extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table badge_templates add column notification_message text null");
    this.addSql("alter table badges add column notification_message text null");
  }

  override async down(): Promise<void> {
    this.addSql("alter table badges drop column notification_message");
    this.addSql("alter table badge_templates drop column notification_message");
  }
}
