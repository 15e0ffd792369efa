import type { Em } from "./orm.ts";

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

/**
 * A transaction straight on knex, for the workers' loops (relay, scheduler). MikroORM's
 * `transactional` keeps its context in an AsyncLocalStorage, and on Node 20 the first use of one
 * installs promise hooks for the rest of the process: every promise of the delivery path would pay
 * for them. Commits when `work` resolves, rolls back when it throws.
 */
export const rawTransaction = async <T>(em: Em, work: (tx: RawTx) => Promise<T>): Promise<T> => {
  const knex = em.getConnection().getKnex() as unknown as {
    transaction<R>(fn: (trx: KnexTransaction) => Promise<R>): Promise<R>;
  };
  return knex.transaction(async (trx) => {
    const tx: RawTx = {
      all: async <R>(sql: string, params: unknown[] = []) => ((await trx.raw(sql, params)).rows ?? []) as R[],
      run: async (sql, params = []) => {
        const r = await trx.raw(sql, params);
        return r.rowCount ?? r.affectedRows ?? 0;
      },
    };
    return work(tx);
  });
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

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface KnexPool {
  client: { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
}

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
export const numbered = (name: string, knexText: string): { name: string; text: string; knexText: string } => {
  let n = 0;
  return { name, knexText, text: knexText.replace(/\?/g, () => `$${++n}`) };
};

/**
 * An error PostgreSQL raised about the data of a statement (SQLSTATE class 22, data exception, or
 * 23, integrity constraint violation): retrying its rows one by one isolates the refused one. A
 * connection or timeout error is not one (retrying row by row would only multiply the waits).
 */
export const isRowRefusal = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code);
};
