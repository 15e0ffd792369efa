// The peer of ops/bench/real_lists.ts: a plain node:http server with a `pg` Pool that answers each
// list request of the benchmark by running the statements Laurel's own store ran for that request
// (captured by real_lists.ts through Laurel's postgres badge store, in order and grouped as Laurel
// sends them: the statements Laurel sends together are sent together here too), then builds the
// same body from the rows it read.
//
// It authenticates nothing, parses no list grammar and keeps no coalescing: the request's path and
// query pick the captured statements. Its body is made with Laurel's own row and JSON functions
// (adapters/db/badge_rows.ts, core/badges/shapes.ts, the page metadata of core/shared): they are
// plain object mapping, cheap to import, and they make the peer's body the same JSON as Laurel's,
// so real_lists.ts compares the two bodies whole before timing. It is serialized with
// JSON.stringify, where Laurel serializes with its route's response schema.
//
// The total: a statement reading `n` gives it. Laurel's store counts a filter once and afterwards
// reads only the organization's change sequence, reusing its count while the sequence has not
// moved; the captured statements are those of that steady state, so the peer likewise reuses the
// total captured with the sequence, and fails the request when the sequence it reads differs.
//
// Env: PORT, DATABASE_URL, STATEMENTS (the JSON file real_lists.ts writes), DB_POOL_MAX (default
// 10, as Laurel's). Prints "listening <port>" when ready.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import pg from "pg";
import {
  type BadgeJoinRow,
  badgeViewOf,
  type TemplateJoinRow,
  templateViewOf,
} from "../../../adapters/db/badge_rows.ts";
import { many, pageUrlFor } from "../../../adapters/rest/envelope.ts";
import { badgeJson, badgeTemplateJson } from "../../../core/badges/mod.ts";
import { type PageRequest, pageMetadata } from "../../../core/shared/mod.ts";
import { peerPort, serveGets } from "./bare_get_server.ts";

/** A statement's value as written to the file: a `Date` is tagged, so it is sent again as a `Date`. */
export type StoredValue = string | number | boolean | null | { $date: string } | StoredValue[];

export interface CapturedStatement {
  text: string;
  values: StoredValue[];
  /** `page`: its rows are the page's items; `count`: its row holds `n` or the change sequence `seq`. */
  role: "page" | "count" | "other";
}

export interface CapturedRequest {
  /** Path and query, exactly as sent to both servers. */
  path: string;
  kind: "badges" | "templates";
  page: PageRequest;
  /** Statements in the groups Laurel sends them: a group starts once the previous one answered. */
  groups: CapturedStatement[][];
  /** The total Laurel's store answered, and the change sequence its cached count was taken at. */
  total: number;
  seq: number | null;
}

export interface CapturedFile {
  /** Laurel's origin: its BASE_URL's and PUBLIC_URL's, which the body's addresses use. */
  origin: string;
  requests: CapturedRequest[];
}

export const storedValue = (value: unknown): StoredValue => {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(storedValue);
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return value;
  throw new TypeError(`a statement value of type ${typeof value} cannot be stored`);
};

const sentValue = (value: StoredValue): unknown => {
  if (Array.isArray(value)) return value.map(sentValue);
  if (value !== null && typeof value === "object") return new Date(value.$date);
  return value;
};

const main = (): void => {
  const port = peerPort();
  const file = JSON.parse(readFileSync(String(process.env.STATEMENTS), "utf8")) as CapturedFile;
  const urls = { publicBase: file.origin };
  const byPath = new Map(
    file.requests.map((r) => [
      r.path,
      { ...r, groups: r.groups.map((g) => g.map((s) => ({ ...s, values: s.values.map(sentValue) }))) },
    ]),
  );
  // As Laurel's pool (adapters/db/sql.ts): the same size, JIT off.
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_MAX ?? 10),
    options: "-c jit=off",
  });
  pool.on("error", () => undefined);

  const answer = async (path: string): Promise<string | null> => {
    const request = byPath.get(path);
    if (!request) return null;
    let rows: Record<string, unknown>[] = [];
    let total = request.total;
    for (const group of request.groups) {
      const results = await Promise.all(group.map((s) => pool.query({ text: s.text, values: s.values })));
      group.forEach((s, i) => {
        const found = (results[i] as pg.QueryResult).rows;
        if (s.role === "page") rows = found;
        if (s.role !== "count") return;
        const row = found[0] ?? {};
        if ("n" in row) total = Number(row.n);
        else if (Number(row.seq) !== request.seq) throw new Error(`${path}: the change sequence moved`);
      });
    }
    const data: unknown[] =
      request.kind === "badges"
        ? (rows as BadgeJoinRow[]).map((r) => {
            const v = badgeViewOf(r);
            return badgeJson(v.badge, v.template, v.issuer, urls, v.authorizedIssuer);
          })
        : (rows as (TemplateJoinRow & { badges_count: number })[]).map((r) => {
            const v = templateViewOf(r, Number(r.badges_count));
            return badgeTemplateJson(v.template, v.owner, urls);
          });
    return JSON.stringify(
      many(data, pageMetadata(request.page, data.length, total, pageUrlFor(file.origin, request.path))),
    );
  };

  serveGets(port, (req, res) => {
    answer(req.url ?? "").then(
      (body) => {
        if (body === null) {
          res.writeHead(404, { "content-length": "0" });
          res.end();
          return;
        }
        res.writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "content-length": String(Buffer.byteLength(body)),
        });
        res.end(body);
      },
      (err: unknown) => {
        const body = String(err instanceof Error ? err.message : err);
        res.writeHead(500, { "content-type": "text/plain", "content-length": String(Buffer.byteLength(body)) });
        res.end(body);
      },
    );
  });
};

// Imported by real_lists.ts for its types and `storedValue`; run as the peer process otherwise.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
