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

/** `?, ?, ?` for a list bound one value per placeholder (knex expands no arrays in raw SQL here). */
export const placeholders = (n: number, each = "?"): string => new Array<string>(n).fill(each).join(", ");

/** int8 comes back from the driver as a string. */
export const toNumber = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** timestamptz comes back as a Date from PostgreSQL and PGlite alike; be tolerant of strings. */
export const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
export const toDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : toDate(v));

/** jsonb comes back parsed; be tolerant of text. */
export const toJson = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));
