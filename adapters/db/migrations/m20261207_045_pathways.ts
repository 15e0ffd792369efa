import { Migration } from "@mikro-orm/migrations";

/**
 * Pathways: a goal of milestones, each a set of the organization's templates of which the earner
 * must hold some. `milestones` is the current version's (core's shape); `template_ids` every
 * template they name, so the published pathways naming a template are found through its index when
 * a badge of it changes. `pathway_progress` keeps each earner's held templates of the pathway (kept
 * as badges change, never recomputed on a read), one row per pathway and address; its completion
 * badge is at most one, and a badge completes at most one pathway's progress.
 */
export class M20261207045Pathways extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table pathways (
      id uuid primary key,
      organization_id uuid not null references organizations(id) on delete cascade,
      name text not null,
      description text not null,
      state text not null check (state in ('draft', 'published', 'archived')),
      version integer not null,
      completion_badge_template_id uuid not null references badge_templates(id) on delete cascade,
      milestones jsonb not null,
      template_ids jsonb not null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      published_at timestamptz(3) null
    )`);
    this.addSql("create index pathways_org_idx on pathways (organization_id, created_at desc, id desc)");
    this.addSql(
      "create index pathways_published_templates_idx on pathways using gin (template_ids jsonb_path_ops) where state = 'published'",
    );
    this.addSql(`create table pathway_progress (
      pathway_id uuid not null references pathways(id) on delete cascade,
      recipient_email_key text not null,
      recipient_email text not null,
      held_template_ids jsonb not null,
      completed_at timestamptz(3) null,
      completion_badge_id uuid null references badges(id) on delete set null,
      updated_at timestamptz(3) not null,
      primary key (pathway_id, recipient_email_key)
    )`);
    this.addSql(
      "create index pathway_progress_list_idx on pathway_progress (pathway_id, updated_at desc, recipient_email_key desc)",
    );
    this.addSql("create index pathway_progress_recipient_idx on pathway_progress (recipient_email_key)");
    this.addSql(
      "create unique index pathway_progress_completion_idx on pathway_progress (completion_badge_id) where completion_badge_id is not null",
    );
  }

  override async down(): Promise<void> {
    this.addSql("drop table pathway_progress");
    this.addSql("drop table pathways");
  }
}
