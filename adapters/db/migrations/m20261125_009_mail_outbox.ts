import { Migration } from "@mikro-orm/migrations";

/**
 * The mail outbox: every mail Laurel sends is first a row here, written in the transaction of the
 * change it tells about, then sent by a worker with retries. A sent mail's row is deleted in the
 * transaction recording its event; a mail that will not go (refused for good, attempts run out)
 * stays with `failed_at` and its last error, for operators.
 */
export class M20261125009MailOutbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table mail_outbox (
      id uuid primary key,
      kind text not null,
      organization_id uuid null references organizations(id) on delete cascade,
      message jsonb not null,
      sent_event jsonb null,
      created_at timestamptz(3) not null,
      attempts integer not null default 0,
      next_attempt_at timestamptz(3) not null,
      last_error text null,
      failed_at timestamptz(3) null
    )`);
    this.addSql("create index mail_outbox_due_idx on mail_outbox (next_attempt_at) where failed_at is null");
    this.addSql("create index mail_outbox_failed_idx on mail_outbox (failed_at) where failed_at is not null");
    this.addSql("create index mail_outbox_organization_idx on mail_outbox (organization_id)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table mail_outbox");
  }
}
