import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { boundedCache, keyBytes } from "../cache/mod.ts";
import { isDatabaseUnavailable } from "./connection_errors.ts";

/**
 * A row as the driver hands it over: timestamptz as `Date`, jsonb parsed, int8 as text or number.
 * What a statement reads when it names no type; a store names its table's row (adapters/db/rows.ts).
 */
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
  /**
   * The bytes of the one `bytea` column of `query`'s rows, end to end, copied into `into` (or, when
   * they do not fit, into a buffer of their size). On PostgreSQL the rows come by `COPY (query) TO
   * STDOUT` in binary, so the bytes travel as they are stored: no hex text to decode, and nothing
   * allocated for them beyond the socket's reads. COPY takes no parameters, so the `?` values
   * (strings or safe integers) are written into the statement as quoted literals.
   */
  copyBytes(query: string, params: readonly (string | number)[], into: Buffer): Promise<{ data: Buffer; rows: number }>;
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

/** Appends pieces to `into` while they fit, then to a buffer of their whole size. */
const byteSink = (into: Buffer) => {
  let used = 0;
  let spilled: Buffer[] | null = null;
  return {
    /** `bytes` may be a view the caller reuses: it is copied. */
    append(bytes: Uint8Array): void {
      if (spilled === null && used + bytes.length <= into.length) {
        into.set(bytes, used);
        used += bytes.length;
        return;
      }
      spilled ??= [into.subarray(0, used)];
      spilled.push(Buffer.from(bytes));
    },
    data: (): Buffer => (spilled === null ? into.subarray(0, used) : Buffer.concat(spilled)),
  };
};

const COPY_SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * Reads COPY's binary format as its messages arrive, cut anywhere: a header (signature, flags, an
 * extension), then per row a field count and per field a length and its bytes (-1: null), then a
 * field count of -1. Each field's bytes go to `field` as views of the message, valid during the call.
 */
const binaryCopyReader = (field: (bytes: Uint8Array) => void) => {
  const scratch = Buffer.alloc(19);
  let state: "header" | "extension" | "count" | "length" | "field" | "end" = "header";
  let need = 19;
  let have = 0;
  let left = 0;
  let fieldsLeft = 0;
  let rows = 0;
  const expect = (next: typeof state, bytes: number): void => {
    state = next;
    need = bytes;
    have = 0;
  };
  const nextField = (): void => {
    if (--fieldsLeft > 0) expect("length", 4);
    else expect("count", 2);
  };
  return {
    push(chunk: Uint8Array): void {
      let at = 0;
      while (at < chunk.length && state !== "end") {
        if (state === "field" || state === "extension") {
          const n = Math.min(left, chunk.length - at);
          if (state === "field") field(chunk.subarray(at, at + n));
          at += n;
          left -= n;
          if (left > 0) continue;
          if (state === "field") nextField();
          else expect("count", 2);
          continue;
        }
        const n = Math.min(need - have, chunk.length - at);
        scratch.set(chunk.subarray(at, at + n), have);
        have += n;
        at += n;
        if (have < need) continue;
        if (state === "header") {
          if (!scratch.subarray(0, 11).equals(COPY_SIGNATURE)) throw new Error("not COPY's binary format");
          left = scratch.readInt32BE(15);
          if (left > 0) state = "extension";
          else expect("count", 2);
        } else if (state === "count") {
          fieldsLeft = scratch.readInt16BE(0);
          if (fieldsLeft === -1) state = "end";
          else {
            rows++;
            if (fieldsLeft > 0) expect("length", 4);
            else expect("count", 2);
          }
        } else {
          left = scratch.readInt32BE(0);
          // -1 is a null: no bytes follow.
          if (left > 0) state = "field";
          else nextField();
        }
      }
    },
    rows: (): number => rows,
    ended: (): boolean => state === "end",
  };
};

/** A statement's `?` values as SQL literals, for statements that take no parameters (COPY). */
const withLiterals = (query: string, params: readonly (string | number)[]): string => {
  let i = 0;
  const text = query.replace(/\?/g, () => {
    const value = params[i++];
    if (typeof value === "string") return pg.escapeLiteral(value);
    if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
    throw new TypeError("COPY's values are strings or safe integers");
  });
  if (i !== params.length) throw new TypeError(`${params.length} values for ${i} placeholders`);
  return text;
};

/** `COPY (query) TO STDOUT` in binary on one connection, its fields' bytes into `into`. */
const copyOut = (client: pg.PoolClient, query: string, into: Buffer): Promise<{ data: Buffer; rows: number }> =>
  new Promise((resolve, reject) => {
    const sink = byteSink(into);
    const reader = binaryCopyReader(sink.append);
    let failed: unknown;
    // A Submittable: pg hands it the COPY's messages as they arrive. Nothing here may throw into
    // pg's message handling, so a malformed stream is kept as the answer and the rest skipped.
    client.query({
      submit: (connection: pg.Connection) => connection.query(`copy (${query}) to stdout (format binary)`),
      handleCopyData: (message: { chunk: Uint8Array }) => {
        if (failed !== undefined) return;
        try {
          reader.push(message.chunk);
        } catch (err) {
          failed = err;
        }
      },
      handleCommandComplete: () => undefined,
      handleEmptyQuery: () => undefined,
      handleError: (err: unknown) => {
        failed ??= err;
      },
      handleReadyForQuery: () => {
        if (failed === undefined && !reader.ended()) failed = new Error("COPY ended early");
        if (failed !== undefined) reject(failed);
        else resolve({ data: sink.data(), rows: reader.rows() });
      },
    } as pg.Submittable);
  });

/** The part of a pino logger the pool needs. */
export interface SqlLog {
  warn(obj: object, msg: string): void;
}

/** One server of a connection string's host list. */
export interface PostgresHost {
  host: string;
  port: number;
}

/**
 * libpq's host list, which `pg` does not read: `postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`.
 * Each server gets a connection string of its own (pg's syntax); `readWrite` is whether only a
 * server that accepts writes will do (`read-write` or `primary`), as libpq's target_session_attrs.
 */
export const parseHostList = (url: string): { servers: Array<PostgresHost & { url: string }>; readWrite: boolean } => {
  const m = /^(postgres(?:ql)?:\/\/)((?:[^@/?#]*@)?)([^/?#]*)(.*)$/.exec(url);
  if (!m) return { servers: [], readWrite: false };
  const [, scheme, auth, hostPart, rest] = m as unknown as [string, string, string, string, string];
  const query = rest.indexOf("?");
  const path = query < 0 ? rest : rest.slice(0, query);
  const params = new URLSearchParams(query < 0 ? "" : rest.slice(query + 1));
  const attrs = params.get("target_session_attrs") ?? "any";
  params.delete("target_session_attrs");
  const search = params.size > 0 ? `?${params}` : "";
  const servers = hostPart.split(",").map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const plain = /^([^:]*)(?::(\d+))?$/.exec(entry);
    const host = (bracketed?.[1] ?? plain?.[1] ?? entry) || "localhost";
    const port = Number((bracketed?.[2] ?? plain?.[2]) || 5432);
    const shown = host.includes(":") ? `[${host}]` : host;
    return { host, port, url: `${scheme}${auth}${shown}:${port}${path}${search}` };
  });
  return { servers, readWrite: attrs === "read-write" || attrs === "primary" };
};

/** What a connection error carries when no server of the list will do: class 08, answered 503. */
const noServer = (hosts: PostgresHost[], readWrite: boolean, cause: unknown): Error =>
  Object.assign(
    new Error(
      `no ${readWrite ? "read-write " : ""}PostgreSQL server among ${hosts.map((h) => `${h.host}:${h.port}`).join(", ")}`,
      { cause },
    ),
    { code: "08001" },
  );

/**
 * The first server of the list that answers and, when `readWrite`, accepts writes (not in
 * recovery, transaction_read_only off): its own connection string. Each probe is a connection of
 * its own, closed again.
 */
export const findServer = async (url: string, timeoutMs = 3_000): Promise<string> => {
  const { servers, readWrite } = parseHostList(url);
  let last: unknown;
  for (const server of servers) {
    const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: timeoutMs });
    // A server cut during the probe emits an error no query awaits.
    client.on("error", () => undefined);
    try {
      await client.connect();
      if (!readWrite) return server.url;
      const { rows } = await client.query<{ writable: boolean }>(
        "select not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off' as writable",
      );
      if (rows[0]?.writable) return server.url;
      last = new Error(`${server.host}:${server.port} is read-only`);
    } catch (err) {
      last = err;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw noServer(servers, readWrite, last);
};

/**
 * Errors after which the pool's server may no longer be the one to use: it went away, or it
 * became read-only (a primary demoted to a standby answers 25006 to a write).
 */
const serverLost = (err: unknown): boolean =>
  isDatabaseUnavailable(err) || (err as { code?: unknown } | null)?.code === "25006";

/**
 * A statement on a connection of its own, through pg's callback form: its promise form keeps each
 * result reachable after the next statement on the connection, so every transaction handed
 * megabytes to the old generation and young collections grew slow (docs/benchmarks.md, scale).
 */
const onClient = (client: pg.PoolClient, query: pg.QueryConfig): Promise<Result> =>
  new Promise((resolve, reject) => {
    client.query(query, (err: Error | null, r: pg.QueryResult) => {
      if (err) reject(err);
      else resolve({ rows: r.rows, count: r.rowCount ?? 0 });
    });
  });

/**
 * PostgreSQL through `pg`'s pool. timestamptz comes back as `Date` (pg's default), as from PGlite.
 * JIT compilation is off: Laurel's statements are short, and a misestimate easily passes
 * `jit_above_cost`, and compiling then costs many times the statement itself (docs/benchmarks.md,
 * figures behind the code).
 *
 * A URL with a host list or `target_session_attrs=read-write` follows the primary: the pool is
 * opened on the first server of the list that will do (findServer), and an error saying that
 * server went away or turned read-only sends the next statement looking again from the start of
 * the list. The pool left behind is not ended while statements may still be on their way to it:
 * its idle connections close by themselves (pg's idle timeout), and `end()` ends it.
 */
export const postgresSql = (opts: { url: string; max: number; log?: SqlLog }): Sql => {
  const { servers, readWrite } = parseHostList(opts.url);
  const follows = servers.length > 1 || readWrite;
  const pools = new Set<pg.Pool>();
  const open = (url: string): pg.Pool => {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max,
      options: "-c jit=off",
      connectionTimeoutMillis: 10_000,
    });
    // An idle connection the server cut (a restart) is dropped by the pool; without a listener the
    // error would end the process.
    pool.on("error", (err) => opts.log?.warn({ err: err.message }, "database connection lost"));
    pools.add(pool);
    return pool;
  };
  let current: pg.Pool | undefined = follows ? undefined : open(opts.url);
  let finding: Promise<pg.Pool> | undefined;
  const acquire = (): Promise<pg.Pool> => {
    if (current) return Promise.resolve(current);
    finding ??= findServer(opts.url)
      .then((url) => {
        const pool = open(url);
        current = pool;
        const { host, port } = parseHostList(url).servers[0] as PostgresHost;
        opts.log?.warn({ host, port }, "database server chosen");
        return pool;
      })
      .finally(() => {
        finding = undefined;
      });
    return finding;
  };
  const lost = (pool: pg.Pool, err: unknown): void => {
    if (!follows || current !== pool || !serverLost(err)) return;
    current = undefined;
    opts.log?.warn({ err: (err as Error).message }, "database server lost: looking for the primary again");
  };
  const over = (client: pg.PoolClient) =>
    queryable((text, values, name) =>
      onClient(client, { text, values: values as unknown[], ...(name ? { name } : {}) }),
    );
  // A named statement lives on one connection; the pool's query picks any, which prepares it there.
  const outside = queryable(async (text, values, name) => {
    const pool = await acquire();
    try {
      const r = await pool.query({ text, values: values as unknown[], ...(name ? { name } : {}) });
      return { rows: r.rows, count: r.rowCount ?? 0 };
    } catch (err) {
      lost(pool, err);
      throw err;
    }
  });
  const connect = async (): Promise<{ pool: pg.Pool; client: pg.PoolClient }> => {
    const pool = await acquire();
    try {
      return { pool, client: await pool.connect() };
    } catch (err) {
      lost(pool, err);
      throw err;
    }
  };
  /**
   * Runs `use` on a connection of its own and releases it, dropped by the pool when it broke. The
   * pool listens for errors on idle connections only. One the server cuts while `use` awaits
   * something else (the bus, say) emits an error no query is there to receive, which without a
   * listener ends the process: it is kept, the next statement fails, and the release drops the
   * connection. `use` calls `drop` for a connection it no longer trusts.
   */
  const leased = async <T>(use: (client: pg.PoolClient, drop: (err: Error) => void) => Promise<T>): Promise<T> => {
    const { pool, client } = await connect();
    let broken: Error | undefined;
    const drop = (err: Error): void => {
      broken ??= err;
    };
    client.on("error", drop);
    try {
      return await use(client, drop);
    } catch (err) {
      lost(pool, err);
      throw err;
    } finally {
      client.off("error", drop);
      client.release(broken);
    }
  };
  return {
    kind: "postgresql",
    ...outside,
    transaction: (work) =>
      leased(async (client, drop) => {
        await onClient(client, { text: "begin" });
        try {
          const result = await work(over(client));
          await onClient(client, { text: "commit" });
          return result;
        } catch (err) {
          // A connection that cannot roll back is broken: released with the error, the pool drops it.
          await onClient(client, { text: "rollback" }).catch(drop);
          throw err;
        }
      }),
    async copyBytes(query, params, into) {
      const text = withLiterals(query, params);
      return leased(async (client, drop) => {
        try {
          return await copyOut(client, text, into);
        } catch (err) {
          // The connection's state after a failed COPY is not worth trusting: the pool drops it.
          drop(err instanceof Error ? err : new Error(String(err)));
          throw err;
        }
      });
    },
    async listen(channel, onNotify, onError) {
      let pool: pg.Pool;
      let client: pg.PoolClient;
      try {
        ({ pool, client } = await connect());
      } catch (err) {
        onError(err);
        return null;
      }
      let alive = true;
      const onConnectionError = (err: Error): void => {
        alive = false;
        lost(pool, err);
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
    end: async () => {
      await Promise.all([...pools].map((pool) => pool.end()));
    },
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
    // In the same process as its caller: the rows are read as they are.
    async copyBytes(query, params, into) {
      const r = await db.query<unknown[]>(numbered(query), params as unknown[], { rowMode: "array" });
      const sink = byteSink(into);
      for (const row of r.rows) {
        const value = row[0];
        if (value instanceof Uint8Array) sink.append(value);
      }
      return { data: sink.data(), rows: r.rows.length };
    },
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

/**
 * Values as one PostgreSQL array literal, the text of a `?::<type>[]` parameter (each quoted, `"`
 * and `\\` escaped). A statement over a batch finds its rows with `= any(?)` of one: the planner
 * then knows the batch's size, where a join to a JSON recordset is planned for 100 rows.
 */
export const arrayLiteral = (values: readonly (string | number)[]): string =>
  `{${values.map((v) => `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",")}}`;

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
