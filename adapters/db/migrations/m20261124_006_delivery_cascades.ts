import { Migration } from "@mikro-orm/migrations";

/**
 * Deliveries and attempts are removed with their event by statement-level triggers instead of
 * foreign keys (issue 4).
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
    this.addSql(`create function laurel_delete_event_deliveries() returns trigger language plpgsql as $$
      begin
        delete from webhook_deliveries d using gone_events g where d.event_id = g.id;
        return null;
      end $$`);
    this.addSql(`create trigger events_delete_deliveries after delete on events
      referencing old table as gone_events for each statement execute function laurel_delete_event_deliveries()`);
    this.addSql(`create function laurel_delete_delivery_attempts() returns trigger language plpgsql as $$
      begin
        delete from webhook_attempts a using gone_deliveries g where a.delivery_id = g.id;
        return null;
      end $$`);
    this.addSql(`create trigger webhook_deliveries_delete_attempts after delete on webhook_deliveries
      referencing old table as gone_deliveries for each statement execute function laurel_delete_delivery_attempts()`);
  }

  override async down(): Promise<void> {
    this.addSql("drop trigger webhook_deliveries_delete_attempts on webhook_deliveries");
    this.addSql("drop function laurel_delete_delivery_attempts()");
    this.addSql("drop trigger events_delete_deliveries on events");
    this.addSql("drop function laurel_delete_event_deliveries()");
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
