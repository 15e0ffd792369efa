import { Migration } from "@mikro-orm/migrations";

/**
 * `mail_outbox.content`: what a mail says (core's `MailContent`), rendered by the mail templates
 * when it is sent, where `message` held the rendered message. A row written before keeps its
 * message whole as the `written` template, so it is sent as it was.
 */
export class M20261207038MailContent extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table mail_outbox rename column message to content");
    this.addSql(
      `update mail_outbox set content = content || '{"template": "written"}'::jsonb where not jsonb_exists(content, 'template')`,
    );
  }

  override async down(): Promise<void> {
    this.addSql("alter table mail_outbox rename column content to message");
  }
}
