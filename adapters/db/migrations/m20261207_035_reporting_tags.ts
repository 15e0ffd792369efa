import { Migration } from "@mikro-orm/migrations";

/**
 * `badge_templates.reporting_tags`: short labels an organization gives its templates to select a
 * collection of badges in its reports (the badge list's `badge_templates[reporting_tags]` filter).
 * A jsonb array like `skills`; the filter matches any tag, ignoring case, over the organization's
 * templates, which are few, so no index.
 */
export class M20261207035ReportingTags extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table badge_templates add column reporting_tags jsonb not null default '[]'::jsonb");
  }

  override async down(): Promise<void> {
    this.addSql("alter table badge_templates drop column reporting_tags");
  }
}
