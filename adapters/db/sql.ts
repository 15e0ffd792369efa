import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { boundedCache, keyBytes } from "../cache/mod.ts";

/** A row as the driver hands it over: timestamptz as `Date`, jsonb parsed, int8 as text or number. */
export type Row = Record<string, unknown>;

/**
 * A named statement: PostgreSQL parses and plans it once per connection, later calls send only the
 * values. For the hot statements whose planning costs the server more than running them.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** Statements, outside a transaction (each commits on its own) or inside one. */
export interface Queryable {
  all<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  one<T = Row>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Rows written (or returned). */
  run(text: string, params?: readonly unknown[]): Promise<number>;
  prepared<T = Row>(statement: Statement, params: readonly unknown[]): Promise<T[]>;
}

export interface Listening {
  /** False once the connection broke: the caller falls back to polling. */
  alive(): boolean;
  close(): Promise<void>;
}

/**
 * Every hand-written statement goes through this: plain statements, a transaction (commits when
 * `work` resolves, rolls back when it throws), prepared statements and LISTEN. Statements use `?`
 * placeholders, numbered here (`$1`, `$2`, ...); no `?` may appear otherwise.
 */
export interface Sql extends Queryable {
  readonly kind: "postgresql" | "pglite";
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** LISTENs on `channel` (on PostgreSQL, on a connection of its own); null when that failed. */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onError: (err: unknown) => void,
  ): Promise<Listening | null>;
  end(): Promise<void>;
}

export const statement = (name: string, text: string): Statement => ({ name, text });

const numberPlaceholders = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** Numbered texts, remembered: the loops and routes send the same few statements again and again. */
const numberedTexts = boundedCache<string>(
  { maxEntries: 500, maxBytes: 8 * 1024 * 1024, ttlMs: 0 },
  { sizeOf: (text, key) => keyBytes(key) + text.length * 2 },
);
const numbered = (sql: string): string => {
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    text = numberPlaceholders(sql);
    numberedTexts.set(sql, text);
  }
  return text;
};

interface Result {
  rows: unknown[];
  count: number;
}

/** The three statement forms over one way of sending a statement. */
const queryable = (send: (text: string, params: readonly unknown[], name?: string) => Promise<Result>): Queryable => ({
  all: async <T>(text: string, params: readonly unknown[] = []) => (await send(numbered(text), params)).rows as T[],
  one: async <T>(text: string, params: readonly unknown[] = []) =>
    (await send(numbered(text), params)).rows[0] as T | undefined,
  run: async (text, params = []) => (await send(numbered(text), params)).count,
  prepared: async <T>(s: Statement, params: readonly unknown[]) =>
    (await send(numbered(s.text), params, s.name)).rows as T[],
});

/** The part of a pino logger the pool needs. */
export interface SqlLog {
  warn(obj: object, msg: string): void;
}

/**
 * PostgreSQL through `pg`'s pool. timestamptz comes back as `Date` (pg's default), as from PGlite.
 * JIT compilation is off: Laurel's statements are short, and a misestimate easily passes
 * `jit_above_cost`, and compiling then costs many times the statement itself (docs/benchmarks.md,
 * figures behind the code).
 */
export const postgresSql = (opts: { url: string; max: number; log?: SqlLog }): Sql => {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max,
    options: "-c jit=off",
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection the server cut (a restart) is dropped by the pool; without a listener the
  // error would end the process.
  pool.on("error", (err) => opts.log?.warn({ err: err.message }, "database connection lost"));
  const over = (client: pg.Pool | pg.PoolClient) =>
    queryable(async (text, values, name) => {
      const r = await client.query({ text, values: values as unknown[], ...(name ? { name } : {}) });
      return { rows: r.rows, count: r.rowCount ?? 0 };
    });
  // A named statement lives on one connection; the pool's query picks any, which prepares it there.
  const outside = over(pool);
  return {
    kind: "postgresql",
    ...outside,
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      // The pool listens for errors on idle connections only. One the server cuts while the work
      // awaits something else (the bus, say) emits an error no query is there to receive, which
      // without a listener ends the process: it is kept, the next statement fails, and the release
      // drops the connection.
      const onConnectionError = (err: Error): void => {
        broken ??= err;
      };
      client.on("error", onConnectionError);
      try {
        await client.query("begin");
        try {
          const result = await work(over(client));
          await client.query("commit");
          return result;
        } catch (err) {
          // A connection that cannot roll back is broken: released with the error, the pool drops it.
          await client.query("rollback").catch((rollbackErr: Error) => {
            broken = rollbackErr;
          });
          throw err;
        }
      } finally {
        client.off("error", onConnectionError);
        client.release(broken);
      }
    },
    async listen(channel, onNotify, onError) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        onError(err);
        return null;
      }
      let alive = true;
      const onConnectionError = (err: Error): void => {
        alive = false;
        onError(err);
      };
      const onNotification = (message: pg.Notification): void => onNotify(message.payload ?? "");
      client.on("notification", onNotification);
      client.on("error", onConnectionError);
      try {
        await client.query(`listen ${channel}`);
      } catch (err) {
        onConnectionError(err as Error);
      }
      return {
        alive: () => alive,
        close: async () => {
          client.off("notification", onNotification);
          client.off("error", onConnectionError);
          if (alive) await client.query(`unlisten ${channel}`).catch(() => undefined);
          client.release(alive ? undefined : new Error("listening connection broke"));
        },
      };
    },
    end: () => pool.end(),
  };
};

/**
 * The embedded PGlite: one connection, which PGlite serializes; a transaction holds it to the end.
 * Its notifications reach listeners of the same instance, which is the only process using it.
 */
export const pgliteSql = (db: PGlite): Sql => {
  const over = (q: Pick<PGlite, "query">) =>
    queryable(async (text, values) => {
      const r = await q.query(text, values as unknown[]);
      return { rows: r.rows, count: r.affectedRows ?? r.rows.length };
    });
  return {
    kind: "pglite",
    ...over(db),
    transaction: (work) => db.transaction((tx) => work(over(tx))),
    async listen(channel, onNotify, onError) {
      let unlisten: () => Promise<void>;
      try {
        unlisten = await db.listen(channel, onNotify);
      } catch (err) {
        onError(err);
        return null;
      }
      let alive = true;
      return {
        alive: () => alive && !db.closed,
        close: async () => {
          if (!alive) return;
          alive = false;
          if (!db.closed) await unlisten().catch(() => undefined);
        },
      };
    },
    end: () => db.close(),
  };
};

/** int8 comes back from `pg` as text, from PGlite as a number. */
export const toNumber = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** timestamptz comes back as a `Date`; text (an ISO or PostgreSQL timestamp) is read too. */
export const toDate = (v: unknown): Date => {
  if (v instanceof Date) return v;
  const text = String(v)
    .replace(" ", "T")
    .replace(/([+-]\d\d)$/, "$1:00");
  return new Date(text);
};
export const toDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : toDate(v));

/** jsonb comes back parsed; be tolerant of text. */
export const toJson = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

/** `?, ?, ?` for a list bound one value per placeholder. */
export const placeholders = (n: number, each = "?"): string => new Array<string>(n).fill(each).join(", ");

/**
 * An error PostgreSQL raised about the data of a statement (SQLSTATE class 22, data exception, or
 * 23, integrity constraint violation): retrying its rows one by one isolates the refused one. A
 * connection or timeout error is not one (retrying row by row would only multiply the waits).
 */
export const isRowRefusal = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code);
};

/** Whether `err` is the database refusing a write on constraint `name` (SQLSTATE `sqlState`). */
export const violates = (err: unknown, sqlState: string, name?: string): boolean => {
  const e = (err ?? {}) as { code?: string; constraint?: string; message?: string };
  if (e.code !== sqlState) return false;
  return name === undefined || e.constraint === name || (e.message ?? "").includes(name);
};
export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";

/** `insert into <table>` of `record`'s `columns` (a plain CRUD write); `returning` names columns to answer. */
export const insertRow = <T = Row>(
  q: Queryable,
  table: string,
  columns: readonly string[],
  record: object,
  returning?: string,
): Promise<T[]> => {
  const values = columns.map((c) => (record as Record<string, unknown>)[c]);
  return q.all<T>(
    `insert into ${table} (${columns.join(", ")}) values (${placeholders(columns.length)})${returning ? ` returning ${returning}` : ""}`,
    values,
  );
};
