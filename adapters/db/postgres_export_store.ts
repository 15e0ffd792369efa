import type { EarnerExportRecord, ExportStore } from "../../core/earners/mod.ts";
import type { Database } from "./database.ts";
import { outboxInsertCte, outboxRows } from "./postgres_mail_outbox.ts";
import type { EarnerExportRow } from "./rows.ts";
import { placeholders, toNumber } from "./sql.ts";

/** Notified when an export is requested (listenForExports). */
export const EXPORTS_CHANNEL = "laurel_exports";

const COLUMNS = "id, user_id, state, token_digest, size_bytes, created_at, ready_at, expires_at";

/** What `COLUMNS` selects. */
type ExportFields = Omit<EarnerExportRow, "lease_until" | "attempts">;

const recordOf = (row: ExportFields): EarnerExportRecord => ({
  id: row.id,
  user_id: row.user_id,
  state: row.state,
  token_digest: row.token_digest,
  size_bytes: row.size_bytes === null ? null : toNumber(row.size_bytes),
  created_at: row.created_at,
  ready_at: row.ready_at,
  expires_at: row.expires_at,
});

/** The earner's exports on PostgreSQL (or PGlite); files as numbered bytea chunks. */
export const postgresExportStore = (db: Database): ExportStore => ({
  async request(record) {
    return db.transaction(async (q) => {
      // One pending export per account: the account's row is locked so two requests queue.
      await q.run("select 1 from users where id = ? for update", [record.user_id]);
      const pending = await q.one<ExportFields>(
        `select ${COLUMNS} from earner_exports where user_id = ? and state = 'pending'`,
        [record.user_id],
      );
      if (pending) return recordOf(pending);
      await q.run("insert into earner_exports (id, user_id, state, created_at) values (?, ?, 'pending', ?)", [
        record.id,
        record.user_id,
        record.created_at,
      ]);
      // Delivered when the transaction commits: an idle exporter wakes for it at once.
      await q.run("select pg_notify(?, '')", [EXPORTS_CHANNEL]);
      return record;
    });
  },
  async claim(now, leaseMs, maxAttempts) {
    const row = await db.one<ExportFields & Pick<EarnerExportRow, "attempts">>(
      `update earner_exports e set lease_until = ?, attempts = e.attempts + 1
       from (select id from earner_exports where state = 'pending' and (lease_until is null or lease_until <= ?)
             order by created_at limit 1 for update skip locked) d
       where e.id = d.id returning ${COLUMNS.split(", ")
         .map((c) => `e.${c}`)
         .join(", ")}, e.attempts`,
      [new Date(now.getTime() + leaseMs), now],
    );
    if (!row) return null;
    if (toNumber(row.attempts) > maxAttempts) {
      await db.run("update earner_exports set state = 'failed' where id = ?", [row.id]);
      return null;
    }
    return recordOf(row);
  },
  async writeChunks(exportId, seq, chunks) {
    if (seq === 0) await db.run("delete from earner_export_chunks where export_id = ?", [exportId]);
    if (chunks.length === 0) return;
    await db.run(
      `insert into earner_export_chunks (export_id, seq, bytes) values ${placeholders(chunks.length, "(?, ?, ?)")}`,
      chunks.flatMap((bytes, i) => [exportId, seq + i, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]),
    );
  },
  async finish(exportId, ready, mail) {
    await db.run(
      `with done as (
         update earner_exports set state = 'ready', token_digest = ?, size_bytes = ?, ready_at = ?, expires_at = ?,
           lease_until = null
         where id = ? and state = 'pending' returning id
       ), ${outboxInsertCte("m", "where exists (select 1 from done)")}
       select 1`,
      [ready.tokenDigest, ready.sizeBytes, ready.readyAt, ready.expiresAt, exportId, outboxRows([{ mail }])],
    );
  },
  async get(exportId) {
    const row = await db.one<ExportFields>(`select ${COLUMNS} from earner_exports where id = ?`, [exportId]);
    return row ? recordOf(row) : null;
  },
  async readChunks(exportId, seq, count, into) {
    // Copied out as stored (docs/decisions.md, export memory): a download then allocates little
    // beyond the socket's reads, however large the file.
    const { data, rows } = await db.copyBytes(
      "select bytes from earner_export_chunks where export_id = ? and seq >= ? order by seq limit ?",
      [exportId, seq, count],
      Buffer.from(into.buffer, into.byteOffset, into.byteLength),
    );
    return { bytes: data, chunks: rows };
  },
  async removeExpired(before) {
    return db.run("delete from earner_exports where state = 'ready' and expires_at < ?", [before]);
  },
});
