import { Migration } from "@mikro-orm/migrations";
import { LIST_INDEXES } from "./m20261125_011_employees.ts";

/**
 * The employees list at any depth and its `total_count` without reading the rows.
 *
 * - The lowercased sort and filter keys become stored columns, so each list index holds exactly
 *   what the list reads: a page is found by an index-only scan of `(organization_id, sort key, id)`
 *   (the state, department and team filters checked on the included columns), then only its 50
 *   rows are read. PostgreSQL does not answer from an index on `lower(col)` alone.
 * - `employee_counts` keeps how many records each organization has per state, department and team,
 *   maintained by statement triggers from the rows each statement changed (one upsert per group,
 *   not per row), so a count with those filters sums a few counters instead of counting records.
 */
const KEYS = ["first_name", "last_name", "department", "team"] as const;
const COVER = "include (employee_state, department_key, team_key)";
const GROUP = "organization_id, employee_state, department_key, team_key";

export class M20261126015EmployeeListKeys extends Migration {
  override async up(): Promise<void> {
    for (const k of KEYS)
      this.addSql(`alter table employees add column ${k}_key text generated always as (lower(${k})) stored`);
    for (const name of ["first_name", "last_name", "email", "department", "team", "created"]) {
      this.addSql(`drop index employees_org_${name}_idx`);
    }
    this.addSql(
      `create index employees_org_first_name_idx on employees (organization_id, first_name_key, id) ${COVER}`,
    );
    this.addSql(`create index employees_org_last_name_idx on employees (organization_id, last_name_key, id) ${COVER}`);
    this.addSql(`create index employees_org_email_idx on employees (organization_id, email_key, id) ${COVER}`);
    this.addSql(`create index employees_org_created_idx on employees (organization_id, created_at, id) ${COVER}`);
    this.addSql("create index employees_org_department_idx on employees (organization_id, department_key)");
    this.addSql("create index employees_org_team_idx on employees (organization_id, team_key)");

    this.addSql(`create table employee_counts (
      organization_id uuid not null,
      employee_state text not null,
      department_key text not null,
      team_key text null,
      n bigint not null
    )`);
    this.addSql(`create unique index employee_counts_group_idx on employee_counts (${GROUP}) nulls not distinct`);
    this.addSql(`insert into employee_counts (${GROUP}, n) select ${GROUP}, count(*) from employees group by ${GROUP}`);
    this.addSql(`create function employee_counts_follow() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          insert into employee_counts as c (${GROUP}, n)
            select ${GROUP}, -count(*) from old_rows group by ${GROUP}
          on conflict (${GROUP}) do update set n = c.n + excluded.n;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          insert into employee_counts as c (${GROUP}, n)
            select ${GROUP}, count(*) from new_rows group by ${GROUP}
          on conflict (${GROUP}) do update set n = c.n + excluded.n;
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger employee_counts_insert after insert on employees
      referencing new table as new_rows for each statement execute function employee_counts_follow()`);
    this.addSql(`create trigger employee_counts_update after update on employees
      referencing old table as old_rows new table as new_rows for each statement execute function employee_counts_follow()`);
    this.addSql(`create trigger employee_counts_delete after delete on employees
      referencing old table as old_rows for each statement execute function employee_counts_follow()`);
  }

  override async down(): Promise<void> {
    for (const op of ["insert", "update", "delete"]) this.addSql(`drop trigger employee_counts_${op} on employees`);
    this.addSql("drop function employee_counts_follow()");
    this.addSql("drop table employee_counts");
    for (const name of ["first_name", "last_name", "email", "department", "team", "created"]) {
      this.addSql(`drop index employees_org_${name}_idx`);
    }
    for (const k of KEYS) this.addSql(`alter table employees drop column ${k}_key`);
    for (const sql of LIST_INDEXES) this.addSql(sql);
  }
}
