import { Migration } from "@mikro-orm/migrations";

/**
 * Indexes for the list filters and sorts, each led by `organization_id` as every list is one
 * organization's: a filter or sort then reads the matching rows in order and stops at the page,
 * instead of sorting the organization's whole history. The high-volume badge feed walks
 * `(organization_id, id)`: ids are UUIDv7, so that is issue order, and a page is a seek past the
 * cursor at any depth.
 */
const INDEXES = [
  "create index badges_org_id_idx on badges (organization_id, id)",
  "create index badges_org_updated_idx on badges (organization_id, updated_at desc, id desc)",
  "create index badges_org_last_name_idx on badges (organization_id, issued_to_last_name, id)",
  "create index badges_org_earner_idx on badges (organization_id, issuer_earner_id) where issuer_earner_id is not null",
  "create index badge_templates_org_updated_idx on badge_templates (organization_id, updated_at desc, id desc)",
  "create index events_org_type_seq_idx on events (organization_id, event_type, seq desc)",
  "create index events_org_occurred_idx on events (organization_id, occurred_at desc)",
] as const;

export class M20261125012ListFilters extends Migration {
  override async up(): Promise<void> {
    for (const sql of INDEXES) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of INDEXES) this.addSql(`drop index ${sql.split(" ")[2]}`);
  }
}
