import { Migration } from "@mikro-orm/migrations";
import { ORGANIZATION_RECORD_KEYS } from "./columns.ts";

/**
 * CSV imports (badges, employee records) as durable jobs: the import with its counts, and one row
 * per line of the file with its item (the API's body), its state and its outcome. A worker takes
 * pending rows `for update skip locked` and commits their issue with their outcome, so the key
 * (import, row) is issued at most once and a crashed worker's rows are simply pending again.
 * The partial index keeps finding pending rows cheap however many are done.
 */
export class M20261127024Imports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table imports (
      ${ORGANIZATION_RECORD_KEYS},
      kind text not null check (kind in ('badges', 'employees')),
      state text not null check (state in ('validating', 'ready', 'running', 'finished', 'failed')),
      file_sha256 text not null,
      file_name text not null,
      row_count int not null,
      invalid_count int not null,
      done_count int not null default 0,
      failed_count int not null default 0,
      repeat_of uuid,
      created_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz
    )`);
    this.addSql("create index imports_page_idx on imports (organization_id, created_at desc, id desc)");
    this.addSql("create index imports_file_idx on imports (organization_id, kind, file_sha256)");
    this.addSql("create index imports_running_idx on imports (started_at, id) where state = 'running'");
    this.addSql(`create table import_rows (
      import_id uuid not null references imports(id) on delete cascade,
      row_no int not null,
      status text not null check (status in ('invalid', 'pending', 'done', 'failed')),
      item jsonb not null,
      outcome_id uuid,
      detail text,
      errors jsonb,
      primary key (import_id, row_no)
    )`);
    this.addSql("create index import_rows_pending_idx on import_rows (import_id, row_no) where status = 'pending'");
  }

  override async down(): Promise<void> {
    this.addSql("drop table import_rows");
    this.addSql("drop table imports");
  }
}
