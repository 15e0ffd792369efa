import { Migration } from "@mikro-orm/migrations";
import { ORGANIZATION_RECORD_KEYS } from "./columns.ts";

/** The list's sorts, then its exact filters (migration 015 puts these back when undone). */
export const LIST_INDEXES = [
  "create index employees_org_created_idx on employees (organization_id, created_at, id)",
  "create index employees_org_email_idx on employees (organization_id, email_key, id)",
  "create index employees_org_first_name_idx on employees (organization_id, lower(first_name), id)",
  "create index employees_org_last_name_idx on employees (organization_id, lower(last_name), id)",
  "create index employees_org_department_idx on employees (organization_id, lower(department))",
  "create index employees_org_team_idx on employees (organization_id, lower(team))",
] as const;

/**
 * Employee records of workforce organizations. Column names are the record's field names, so rows
 * are written from JSON with `jsonb_populate_recordset` (one bound value for a batch of 1,000).
 * Lists are per organization: each sort has an index led by `organization_id`.
 */
export class M20261125011Employees extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table employees (
      ${ORGANIZATION_RECORD_KEYS},
      email text not null,
      email_key text not null,
      first_name text not null,
      last_name text not null,
      external_id text not null,
      position_title text not null default '',
      manager_external_id text not null default '',
      department text not null default '',
      job_family text not null default '',
      organization_level_1 text not null default '',
      organization_level_2 text not null default '',
      organization_level_3 text not null default '',
      team text null,
      manager_first_name text null,
      manager_last_name text null,
      country text null,
      zip_code text null,
      state_or_province text null,
      level text null,
      employment_histories jsonb not null default '[]'::jsonb,
      employee_state text not null check (employee_state in ('created', 'pending', 'accepted', 'rejected')),
      employee_state_updated_at timestamptz(3) not null,
      last_invitation_sent_at timestamptz(3) null,
      user_id uuid null references users(id) on delete set null,
      created_at timestamptz(3) not null,
      last_updated_by_organization_at timestamptz(3) not null
    )`);
    this.addSql("create unique index employees_org_external_id_idx on employees (organization_id, external_id)");
    for (const sql of LIST_INDEXES) this.addSql(sql);
    // The state filter, which also serves the newest-first order within a state.
    this.addSql("create index employees_org_state_idx on employees (organization_id, employee_state, created_at, id)");
    // Association with earner accounts goes by the normalized address across organizations.
    this.addSql("create index employees_email_key_idx on employees (email_key)");
    this.addSql("create index employees_user_idx on employees (user_id) where user_id is not null");
  }

  override async down(): Promise<void> {
    this.addSql("drop table employees");
  }
}
