import { Migration } from "@mikro-orm/migrations";

/**
 * Recommendations of a badge template to a person. One per organization, template and address
 * (a dismissed one stays, so the person is not asked again). Whether it is fulfilled is read from
 * the badges (`badges_recipient_idx`), never stored. A deleted template takes its recommendations
 * with it; a deleted employee record leaves them, made to its address.
 */
export class M20261207044Recommendations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table recommendations (
      id uuid primary key,
      organization_id uuid not null references organizations(id) on delete cascade,
      badge_template_id uuid not null references badge_templates(id) on delete cascade,
      recipient_email text not null,
      recipient_email_key text not null,
      employee_id uuid null references employees(id) on delete set null,
      message text null,
      created_at timestamptz(3) not null,
      dismissed_at timestamptz(3) null,
      notified_at timestamptz(3) null
    )`);
    this.addSql(`create unique index recommendations_once_idx
      on recommendations (organization_id, badge_template_id, recipient_email_key)`);
    this.addSql("create index recommendations_org_idx on recommendations (organization_id, created_at desc, id desc)");
    this.addSql("create index recommendations_recipient_idx on recommendations (recipient_email_key)");
  }

  override async down(): Promise<void> {
    this.addSql("drop table recommendations");
  }
}
