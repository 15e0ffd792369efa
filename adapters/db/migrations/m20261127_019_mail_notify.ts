import { Migration } from "@mikro-orm/migrations";

/**
 * A statement that queues mail notifies `laurel_mail`, so an idle mail sender wakes at once instead
 * of polling the outbox every second. A statement trigger, not a change to each writer: mails are
 * queued by common table expressions of many statements.
 */
export class M20261127019MailNotify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function mail_outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('laurel_mail', '');
        return null;
      end $$`);
    this.addSql(
      "create trigger mail_outbox_notify after insert on mail_outbox for each statement execute function mail_outbox_notify()",
    );
  }
}
