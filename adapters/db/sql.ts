import { boundedCache, keyBytes } from "../cache/mod.ts";
import type { Database, Em } from "./orm.ts";

interface RawResult {
  rows?: unknown[];
  rowCount?: number | null;
  affectedRows?: number;
}

interface RawQuery extends PromiseLike<RawResult> {
  transacting(tx: unknown): RawQuery;
}

/**
 * Raw SQL with bound parameters (`?`), in `em`'s transaction when it has one. It goes through knex
 * rather than MikroORM's `execute`, which inlines every value into the SQL text on the client: the
 * batched statements of the workers carry hundreds of values, and binding them is cheaper.
 */
const raw = async (em: Em, sql: string, params: unknown[]): Promise<RawResult> => {
  const knex = em.getConnection().getKnex() as unknown as { raw(sql: string, bindings: unknown[]): RawQuery };
  const query = knex.raw(sql, params);
  const tx = em.getTransactionContext();
  return tx ? query.transacting(tx) : query;
};

export const sqlAll = async <T>(em: Em, sql: string, params: unknown[] = []): Promise<T[]> =>
  ((await raw(em, sql, params)).rows ?? []) as T[];

export const sqlRun = async (em: Em, sql: string, params: unknown[] = []): Promise<number> => {
  const r = await raw(em, sql, params);
  return r.rowCount ?? r.affectedRows ?? 0;
};

interface KnexTransaction {
  raw(sql: string, bindings: unknown[]): PromiseLike<RawResult>;
}

/** Statements inside `rawTransaction`. */
export interface RawTx {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
}

interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<RawResult & { rows: unknown[] }>;
}

interface KnexPool {
  client: { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
}

const numberPlaceholders = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** `?` placeholders numbered (`$1`, `$2`...), remembered per statement text (the loops reuse a few). */
const numberedTexts = boundedCache<string>(
  { maxEntries: 200, maxBytes: 4 * 1024 * 1024, ttlMs: 0 },
  { sizeOf: (text, key) => keyBytes(key) + text.length * 2 },
);
const numberedText = (sql: string): string => {
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    text = numberPlaceholders(sql);
    numberedTexts.set(sql, text);
  }
  return text;
};

/** `all` and `run` over one way of sending a statement (a knex transaction, a pooled connection). */
const txOver = (query: (sql: string, params: unknown[]) => PromiseLike<RawResult>): RawTx => ({
  all: async <T>(sql: string, params: unknown[] = []) => ((await query(sql, params)).rows ?? []) as T[],
  run: async (sql, params = []) => {
    const r = await query(sql, params);
    return r.rowCount ?? r.affectedRows ?? 0;
  },
});

/**
 * A transaction for the workers' loops (relay, scheduler), which may run hundreds a second when
 * events come one by one. On PostgreSQL it runs on a pooled connection directly (BEGIN, the
 * statements, COMMIT): a knex transaction builds a whole knex instance (every query-builder method
 * defined anew), ~100 KB of objects that outlived V8's young generation, so at 500 events/s the
 * relay alone promoted ~10 MB/s and the worker's scavenges took 5-13 ms. On PGlite (one connection,
 * `npm start`) it stays a knex transaction. Nor is it MikroORM's `transactional`, which keeps its
 * context in an AsyncLocalStorage: on Node 20 the first use of one installs promise hooks for the
 * rest of the process, a cost on every promise of the delivery path. Statements use `?`
 * placeholders (no `?` may appear otherwise). Commits when `work` resolves, rolls back when it
 * throws.
 */
export const rawTransaction = async <T>(db: Database, work: (tx: RawTx) => Promise<T>): Promise<T> => {
  // The connection's knex (its pool): no EntityManager is needed, so none is forked per call.
  const knexOf = (): unknown => db.orm.em.getConnection().getKnex();
  if (db.kind === "pglite") {
    const knex = knexOf() as {
      transaction<R>(fn: (trx: KnexTransaction) => Promise<R>): Promise<R>;
    };
    return knex.transaction((trx) => work(txOver((sql, params) => trx.raw(sql, params))));
  }
  const pool = (knexOf() as KnexPool).client;
  const connection = await pool.acquireConnection();
  try {
    await connection.query({ text: "begin", values: [] });
    let result: T;
    try {
      result = await work(txOver((sql, params) => connection.query({ text: numberedText(sql), values: params })));
    } catch (err) {
      // A connection that cannot roll back is broken: the pool drops it (knex marks it disposed).
      await connection.query({ text: "rollback", values: [] }).catch(() => undefined);
      throw err;
    }
    await connection.query({ text: "commit", values: [] });
    return result;
  } finally {
    await pool.releaseConnection(connection);
  }
};

/** `?, ?, ?` for a list bound one value per placeholder (knex expands no arrays in raw SQL here). */
export const placeholders = (n: number, each = "?"): string => new Array<string>(n).fill(each).join(", ");

/** int8 comes back from the driver as a string. */
export const toNumber = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** timestamptz comes back as a Date from PostgreSQL and PGlite alike; be tolerant of strings. */
export const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
export const toDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : toDate(v));

/** jsonb comes back parsed; be tolerant of text. */
export const toJson = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

/**
 * A named prepared statement on a pooled PostgreSQL connection, outside any transaction (a lone
 * statement commits on its own): each connection parses and plans `text` once, and later calls
 * send only the values. For the hot statements of issuing, whose planning costs the server more
 * than running them. `text` uses `$1`-style placeholders; `fallback` runs it on PGlite, whose
 * driver takes `?` placeholders through knex.
 */
export const preparedAll = async <T>(
  em: Em,
  kind: "postgresql" | "pglite",
  statement: { name: string; text: string; knexText: string },
  values: unknown[],
): Promise<T[]> => {
  if (kind === "pglite") return sqlAll<T>(em, statement.knexText, values);
  const knex = em.getConnection().getKnex() as unknown as KnexPool;
  const connection = await knex.client.acquireConnection();
  try {
    return (await connection.query({ name: statement.name, text: statement.text, values })).rows as T[];
  } finally {
    await knex.client.releaseConnection(connection);
  }
};

/** A statement written with `?` placeholders, numbered for a prepared statement (`$1`, `$2`, ...). */
export const numbered = (name: string, knexText: string): { name: string; text: string; knexText: string } => ({
  name,
  knexText,
  text: numberPlaceholders(knexText),
});

/**
 * An error PostgreSQL raised about the data of a statement (SQLSTATE class 22, data exception, or
 * 23, integrity constraint violation): retrying its rows one by one isolates the refused one. A
 * connection or timeout error is not one (retrying row by row would only multiply the waits).
 */
export const isRowRefusal = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code);
};
