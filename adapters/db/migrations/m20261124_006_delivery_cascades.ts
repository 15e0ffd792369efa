import { Migration } from "@mikro-orm/migrations";

/** Each former foreign key: deleting `parent` rows deletes the `child` rows whose `column` names them. */
const CASCADES = [
  {
    parent: "events",
    child: "webhook_deliveries",
    column: "event_id",
    fn: "laurel_delete_event_deliveries",
    trigger: "events_delete_deliveries",
  },
  {
    parent: "webhook_deliveries",
    child: "webhook_attempts",
    column: "delivery_id",
    fn: "laurel_delete_delivery_attempts",
    trigger: "webhook_deliveries_delete_attempts",
  },
] as const;

/**
 * Deliveries and attempts are removed with their event by statement-level triggers instead of
 * foreign keys.
 *
 * A foreign key is checked row by row: every delivery written ran a query locking its event (`for
 * key share`, one more WAL record per event) and every attempt one on its delivery. Together that
 * was ~12 µs of PostgreSQL per delivered event, a third of the statement that records a batch of
 * first attempts (EXPLAIN ANALYZE of 130 rows: 1.57 of 5.1 ms). The writes already name rows that
 * exist: a first delivery is joined to its event in the same statement, and an attempt is written
 * with its delivery or for one the worker holds a claim on.
 *
 * What the keys did on delete is kept: deleting events (an organization's, by cascade) deletes
 * their deliveries, and deleting deliveries deletes their attempts, one statement per deleting
 * statement over its transition table. Laurel itself never deletes events; an operator's SQL may.
 * What is given up: a delivery recorded by a worker at the very moment its event is deleted, in a
 * transaction that commits after the delete, is no longer refused: it stays behind, naming an
 * event and organization that are gone (no list shows it, and the scheduler only ever sends it to
 * an organization without a webhook, which fails it).
 */
export class M20261124006DeliveryCascades extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey");
    this.addSql("alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey");
    for (const c of CASCADES) {
      this.addSql(`create function ${c.fn}() returns trigger language plpgsql as $$
        begin
          delete from ${c.child} x using gone g where x.${c.column} = g.id;
          return null;
        end $$`);
      this.addSql(`create trigger ${c.trigger} after delete on ${c.parent}
        referencing old table as gone for each statement execute function ${c.fn}()`);
    }
  }

  override async down(): Promise<void> {
    for (const c of CASCADES) {
      this.addSql(`drop trigger ${c.trigger} on ${c.parent}`);
      this.addSql(`drop function ${c.fn}()`);
    }
    this.addSql(
      "delete from webhook_attempts a where not exists (select 1 from webhook_deliveries d where d.id = a.delivery_id)",
    );
    this.addSql("delete from webhook_deliveries d where not exists (select 1 from events e where e.id = d.event_id)");
    this.addSql(`alter table webhook_attempts add constraint webhook_attempts_delivery_id_fkey
      foreign key (delivery_id) references webhook_deliveries(id) on delete cascade`);
    this.addSql(`alter table webhook_deliveries add constraint webhook_deliveries_event_id_fkey
      foreign key (event_id) references events(id) on delete cascade`);
  }
}
