import { createHmac, randomUUID } from "node:crypto";
import { connect } from "node:net";
import { Readable } from "node:stream";
import t from "tap";
import { Pool } from "undici";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Thousands of generated bad requests against every REST route and
 * the token endpoint of a running server (real PostgreSQL and NATS). Every answer must be a 4xx in
 * the documented error body (RFC 6749 errors at the token endpoint), never a 5xx, and afterwards
 * nothing may have been created, changed or lost.
 *
 * Reproduce a run with `BAD_INPUT_SEED=<seed>`; `BAD_INPUT_PER_ROUTE` sets the count per route.
 */

const SEED = Number(process.env.BAD_INPUT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PER_ROUTE = Number(process.env.BAD_INPUT_PER_ROUTE ?? 1000);
const CONCURRENCY = 8;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32)

const mulberry32 = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
};
const rng = mulberry32(SEED);
const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)] as T;
const chance = (p: number): boolean => rng() < p;
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const UNICODE = ["é", "ü", "ß", "漢", "字", "😀", "𝕏", "\u202e", "\u2028", "\uffff", "Ω", "ﬀ", "\u0301", "ｎ"];
const randomString = (len: number, alphabet = PRINTABLE): string => {
  let s = "";
  for (let i = 0; i < len; i++) s += alphabet[int(0, alphabet.length - 1)];
  return s;
};
const randomUnicode = (len: number): string => {
  let s = "";
  for (let i = 0; i < len; i++) s += chance(0.5) ? pick(UNICODE) : randomString(1, LETTERS);
  return s;
};
const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string | Buffer): string => Buffer.from(s).toString("base64url");
const deepArray = (depth: number, inner = ""): string => "[".repeat(depth) + inner + "]".repeat(depth);
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
/** One of `items`, each as likely as its weight. */
const weighted = <T extends { weight: number }>(items: readonly T[]): T => {
  let x = rng() * items.reduce((s, g) => s + g.weight, 0);
  for (const item of items) {
    x -= item.weight;
    if (x < 0) return item;
  }
  return items[items.length - 1] as T;
};

// ---------------------------------------------------------------------------------------------
// Cases and checks

type RouteId =
  | "GET apps"
  | "GET app"
  | "POST apps"
  | "PUT app"
  | "DELETE app"
  | "GET tokens"
  | "POST tokens"
  | "POST rotate"
  | "GET organization"
  | "PUT organization"
  | "POST oauth/token";

type BodyKind = "createApp" | "updateApp" | "createToken" | "rotate" | "updateOrganization";

interface Case {
  route: RouteId;
  group: string;
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer | (() => Readable);
  /** Statuses this case must get; any 4xx when absent. */
  expect?: number[];
  /** The RFC 6749 error codes this case may get (token endpoint). */
  oauthErrors?: string[];
}

interface Outcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  error?: string;
}

/** Printable ASCII only: raw U+2028 and friends would break the TAP stream. */
const ascii = (s: string): string =>
  s.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

const describe = (c: Case): string => {
  const body =
    c.body === undefined
      ? ""
      : typeof c.body === "function"
        ? " <stream>"
        : ` body[${c.body.length}]=${JSON.stringify(c.body.toString().slice(0, 80))}`;
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}...(${v.length})` : v}`)
    .join("; ");
  return ascii(
    `${c.method} ${c.path.length > 140 ? `${c.path.slice(0, 140)}...(${c.path.length})` : c.path} [${headers}]${body}`,
  );
};

const CODE_FOR_STATUS: Record<number, string> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
};

const header = (o: Outcome, name: string): string => {
  const v = o.headers[name];
  return Array.isArray(v) ? v.join(", ") : (v ?? "");
};

/** What is wrong with an answer of the API (the documented error body). Empty when it is right. */
const apiProblems = (c: Case, o: Outcome, secrets: string[]): string[] => {
  const problems: string[] = [];
  if (o.error) return [`no response: ${o.error}`];
  if (o.status < 400 || o.status > 499) problems.push(`status ${o.status} is not a 4xx`);
  if (c.expect && !c.expect.includes(o.status)) problems.push(`status ${o.status}, expected ${c.expect.join(" or ")}`);
  if (!/^application\/json\b/.test(header(o, "content-type")))
    problems.push(`content-type ${JSON.stringify(header(o, "content-type"))}`);
  let body: unknown;
  try {
    body = JSON.parse(o.text);
  } catch {
    problems.push("body is not JSON");
  }
  const b = body as { data?: Record<string, unknown>; metadata?: unknown } | null;
  if (!b || typeof b !== "object" || Array.isArray(b)) {
    problems.push("body is not an object");
  } else {
    const keys = Object.keys(b).sort().join(",");
    if (keys !== "data,metadata") problems.push(`body keys are ${keys}, not data,metadata`);
    if (!b.metadata || typeof b.metadata !== "object" || Object.keys(b.metadata).length !== 0)
      problems.push("metadata is not {}");
    const d = b.data;
    if (!d || typeof d !== "object" || Array.isArray(d)) {
      problems.push("data is not an object");
    } else {
      const keys = Object.keys(d).sort().join(",");
      if (keys !== "code,errors,message" && keys !== "code,errors,message,reason")
        problems.push(`data keys are ${Object.keys(d).join(",")}`);
      const reason = d.reason as Record<string, unknown> | undefined;
      if (reason !== undefined && (typeof reason !== "object" || typeof reason.name !== "string"))
        problems.push("reason has no name");
      if (typeof d.message !== "string" || d.message.trim() === "") problems.push("message is empty or not a string");
      if (typeof d.code !== "string" || d.code === "") problems.push("code is empty or not a string");
      if (CODE_FOR_STATUS[o.status] && d.code !== CODE_FOR_STATUS[o.status])
        problems.push(`code ${String(d.code)} for status ${o.status}`);
      if (!Array.isArray(d.errors)) {
        problems.push("errors is not an array");
      } else {
        for (const e of d.errors as unknown[]) {
          const fe = e as Record<string, unknown>;
          if (
            !fe ||
            typeof fe !== "object" ||
            Object.keys(fe).sort().join(",") !== "field,message" ||
            typeof fe.field !== "string" ||
            typeof fe.message !== "string" ||
            fe.message === ""
          ) {
            problems.push(`bad field error ${JSON.stringify(e)}`);
          }
        }
        if (o.status === 422 && d.errors.length === 0) problems.push("422 without field errors");
      }
    }
  }
  if (o.status === 401 && !/^(Basic|Bearer)\b/i.test(header(o, "www-authenticate")))
    problems.push("401 without WWW-Authenticate");
  if (o.status >= 400)
    for (const s of secrets) if (o.text.includes(s)) problems.push("the error answer leaks a credential");
  return problems;
};

const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
];

/** What is wrong with an answer of the token endpoint (RFC 6749 §5.2). */
const tokenProblems = (c: Case, o: Outcome, secrets: string[]): string[] => {
  const problems: string[] = [];
  if (o.error) return [`no response: ${o.error}`];
  // 413: a body over the token endpoint's 16 KiB, answered as `invalid_request` too.
  if (
    o.status !== 400 &&
    o.status !== 401 &&
    !(o.status === 413 && (typeof c.body === "function" || (c.body?.length ?? 0) > 16 * 1024))
  )
    problems.push(`status ${o.status} is not 400 or 401`);
  if (c.expect && !c.expect.includes(o.status)) problems.push(`status ${o.status}, expected ${c.expect.join(" or ")}`);
  if (!/^application\/json\b/.test(header(o, "content-type")))
    problems.push(`content-type ${JSON.stringify(header(o, "content-type"))}`);
  if (!/no-store/.test(header(o, "cache-control"))) problems.push("no Cache-Control: no-store");
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(o.text);
  } catch {
    problems.push("body is not JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    problems.push("body is not an object");
  } else {
    const extra = Object.keys(body).filter((k) => !["error", "error_description", "error_uri"].includes(k));
    if (extra.length) problems.push(`unexpected keys ${extra.join(",")}`);
    if (typeof body.error !== "string" || !OAUTH_ERRORS.includes(body.error))
      problems.push(`error ${JSON.stringify(body.error)} is not an RFC 6749 code`);
    if (c.oauthErrors && !c.oauthErrors.includes(String(body.error)))
      problems.push(`error ${String(body.error)}, expected ${c.oauthErrors.join(" or ")}`);
    if (typeof body.error_description !== "string" || body.error_description.trim() === "")
      problems.push("error_description empty");
    if ((o.status === 401) !== (body.error === "invalid_client"))
      problems.push(`error ${String(body.error)} with status ${o.status}`);
  }
  if (o.status === 401 && !/^Basic\b/i.test(header(o, "www-authenticate")))
    problems.push("401 without WWW-Authenticate");
  if (o.status >= 400)
    for (const s of secrets) if (o.text.includes(s)) problems.push("the error answer leaks a credential");
  return problems;
};

// ---------------------------------------------------------------------------------------------
// The server and the valid setup

interface OAuthApp {
  id: number;
  uid: string;
  secret: string | null;
  name: string;
  [k: string]: unknown;
}
interface AuthToken {
  id: string;
  token: string;
  [k: string]: unknown;
}

let laurel: TestLaurel;
let pool: Pool;
t.before(async () => {
  laurel = await startLaurel();
  pool = new Pool(laurel.origin, {
    connections: CONCURRENCY,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
});
t.teardown(async () => {
  await pool?.close();
  await laurel?.close();
});

const send = async (c: {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Case["body"];
}): Promise<Outcome> => {
  try {
    const res = await pool.request({
      method: c.method as "GET",
      path: c.path,
      headers: c.headers,
      body: typeof c.body === "function" ? c.body() : c.body,
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  } catch (err) {
    return { status: 0, headers: {}, text: "", error: (err as Error).message };
  }
};

const json = async (method: string, path: string, auth: string | null, body?: unknown) => {
  const o = await send({
    method,
    path,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: o.status, headers: o.headers, body: o.text ? JSON.parse(o.text) : null };
};

const accessToken = async (app: OAuthApp, scope: string): Promise<string> => {
  const o = await send({
    method: "POST",
    path: "/oauth/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app.uid,
      client_secret: app.secret as string,
      scope,
    }).toString(),
  });
  if (o.status !== 200) throw new Error(`token endpoint: ${o.status} ${o.text}`);
  return (JSON.parse(o.text) as { access_token: string }).access_token;
};

/** The fields a request may never change (use timestamps legitimately move). */
const stableApp = (a: Record<string, unknown>) => {
  const { last_used_at: _u, last_successfully_used_at: _s, ...rest } = a;
  return rest;
};
const stableToken = stableApp;

const snapshot = async (orgId: string, auth: string) => {
  const apps = await json("GET", `/v1/organizations/${orgId}/oauth_applications`, auth);
  const tokens = await json("GET", `/v1/organizations/${orgId}/authorization_tokens`, auth);
  const organization = await json("GET", `/v1/organizations/${orgId}`, auth);
  if (apps.status !== 200 || tokens.status !== 200 || organization.status !== 200)
    throw new Error(`snapshot failed: ${apps.status} ${tokens.status} ${organization.status}`);
  const byId = <T extends { id: unknown }>(xs: T[]) => [...xs].sort((a, b) => String(a.id).localeCompare(String(b.id)));
  return {
    apps: byId(apps.body.data as OAuthApp[]).map(stableApp),
    appsTotal: apps.body.metadata.total_count as number,
    tokens: byId(tokens.body.data as AuthToken[]).map(stableToken),
    tokensTotal: tokens.body.metadata.total_count as number,
    organization: organization.body.data as Record<string, unknown>,
  };
};

// ---------------------------------------------------------------------------------------------

t.test(
  `at least ${PER_ROUTE} bad requests per route: 4xx in the documented body, nothing changed (seed ${SEED})`,
  async (t) => {
    t.comment(`seed ${SEED} (reproduce with BAD_INPUT_SEED=${SEED})`);

    // Valid setup: organization A with a victim application (first, so that its id is small), an
    // application for the fuzz, a read-only token and a throwaway token for rotation; organization B.
    const a = await laurel.createOrganization("Fuzzed Org");
    const b = await laurel.createOrganization("Bystander Org");
    const org = a.organization.id;
    const admin = basic(a.authorization_token.token);
    const adminB = basic(b.authorization_token.token);
    const appsPath = `/v1/organizations/${org}/oauth_applications`;
    const tokensPath = `/v1/organizations/${org}/authorization_tokens`;
    const victim = (await json("POST", appsPath, admin, { name: "victim", description: "must survive" })).body
      .data as OAuthApp;
    const keeper = (await json("POST", appsPath, admin, { name: "keeper", description: null })).body.data as OAuthApp;
    const reader = (
      await json("POST", tokensPath, admin, { description: "reader", write_enabled: false, delete_enabled: false })
    ).body.data as AuthToken;
    const rotator = (await json("POST", tokensPath, admin, { description: "rotator" })).body.data as AuthToken;
    const appB = (
      await json("POST", `/v1/organizations/${b.organization.id}/oauth_applications`, adminB, { name: "b's" })
    ).body.data as OAuthApp;
    t.ok(victim?.id && keeper?.id && reader?.token && rotator?.token && appB?.id, "valid setup requests succeed");
    const eventsBearer = await accessToken(keeper, "events");
    const tokensBearer = await accessToken(keeper, "authorization_tokens");
    const before = await snapshot(org, admin);
    const beforeB = await snapshot(b.organization.id, adminB);
    t.equal(before.appsTotal, 2);
    t.equal(before.tokensTotal, 3);

    const secrets = [
      a.authorization_token.token,
      reader.token,
      rotator.token,
      b.authorization_token.token,
      keeper.secret as string,
      victim.secret as string,
      appB.secret as string,
    ];
    const adminToken = a.authorization_token.token;
    const readerAuth = basic(reader.token);
    const rotatorAuth = basic(rotator.token);
    const MISSING_APP = "2147483647";

    // ----- Routes ------------------------------------------------------------------------------

    interface ApiRoute {
      id: RouteId;
      method: string;
      /** Path for an organization segment and an application id segment. */
      path(orgSeg: string, appSeg?: string): string;
      appId?: string;
      body?: BodyKind;
      list?: boolean;
      auth: string;
      /** Has a JSON body that is parsed (POST, PUT, and DELETE's unused body). */
      parsesBody: boolean;
    }
    const appPath = (o: string, id?: string) => `/v1/organizations/${o}/oauth_applications/${id}`;
    const ROUTES: ApiRoute[] = [
      {
        id: "GET apps",
        method: "GET",
        path: (o) => `/v1/organizations/${o}/oauth_applications`,
        list: true,
        auth: admin,
        parsesBody: false,
      },
      { id: "GET app", method: "GET", path: appPath, appId: String(keeper.id), auth: admin, parsesBody: false },
      {
        id: "POST apps",
        method: "POST",
        path: (o) => `/v1/organizations/${o}/oauth_applications`,
        body: "createApp",
        auth: admin,
        parsesBody: true,
      },
      {
        id: "PUT app",
        method: "PUT",
        path: appPath,
        appId: String(keeper.id),
        body: "updateApp",
        auth: admin,
        parsesBody: true,
      },
      { id: "DELETE app", method: "DELETE", path: appPath, appId: String(keeper.id), auth: admin, parsesBody: true },
      {
        id: "GET tokens",
        method: "GET",
        path: (o) => `/v1/organizations/${o}/authorization_tokens`,
        list: true,
        auth: admin,
        parsesBody: false,
      },
      {
        id: "POST tokens",
        method: "POST",
        path: (o) => `/v1/organizations/${o}/authorization_tokens`,
        body: "createToken",
        auth: admin,
        parsesBody: true,
      },
      {
        id: "POST rotate",
        method: "POST",
        path: (o) => `/v1/organizations/${o}/authorization_tokens/rotate`,
        body: "rotate",
        auth: rotatorAuth,
        parsesBody: true,
      },
      {
        id: "GET organization",
        method: "GET",
        path: (o) => `/v1/organizations/${o}`,
        auth: admin,
        parsesBody: false,
      },
      {
        id: "PUT organization",
        method: "PUT",
        path: (o) => `/v1/organizations/${o}`,
        body: "updateOrganization",
        auth: admin,
        parsesBody: true,
      },
    ];

    // ----- Bodies ------------------------------------------------------------------------------

    type FieldType = "string" | "boolean";
    interface Field {
      type: FieldType;
      nullable?: boolean;
      required?: boolean;
      min?: number;
      max?: number;
    }
    const FIELDS: Record<BodyKind, Record<string, Field>> = {
      createApp: {
        name: { type: "string", required: true, min: 1, max: 255 },
        description: { type: "string", nullable: true, max: 2000 },
      },
      updateApp: {
        name: { type: "string", min: 1, max: 255 },
        description: { type: "string", nullable: true, max: 2000 },
      },
      createToken: {
        description: { type: "string", max: 2000 },
        read_enabled: { type: "boolean" },
        write_enabled: { type: "boolean" },
        delete_enabled: { type: "boolean" },
      },
      rotate: { description: { type: "string", max: 2000 } },
      updateOrganization: {
        name: { type: "string", min: 1, max: 255 },
        description: { type: "string", nullable: true, max: 5000 },
      },
    };
    /** Valid bodies: sent only with exactly one defect elsewhere, so they must not take effect. */
    const TEMPLATE: Record<BodyKind, Array<[string, string]>> = {
      createApp: [
        ["name", '"fuzz app"'],
        ["description", '"made by the fuzzer"'],
      ],
      updateApp: [
        ["name", '"renamed by fuzz"'],
        ["description", '"changed by fuzz"'],
      ],
      createToken: [
        ["description", '"fuzz"'],
        ["read_enabled", "true"],
        ["write_enabled", "false"],
        ["delete_enabled", "false"],
      ],
      rotate: [["description", '"rotated by fuzz"']],
      updateOrganization: [
        ["name", '"renamed by fuzz"'],
        ["description", '"changed by fuzz"'],
      ],
    };
    const objectText = (entries: Array<[string, string]>): string =>
      `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
    const validBody = (kind: BodyKind): string => objectText(TEMPLATE[kind]);
    /** The template with some optional fields left out (never the required ones, never `keep`). */
    const someOf = (kind: BodyKind, keep?: string): Array<[string, string]> => {
      const entries = TEMPLATE[kind].filter(([k]) => k === keep || FIELDS[kind][k]?.required || chance(0.6));
      return entries.length ? entries : TEMPLATE[kind].slice(0, 1);
    };

    const WRONG_FOR: Record<FieldType, string[]> = {
      string: [
        "1",
        "-1",
        "0",
        "1.5",
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "true",
        "false",
        "[]",
        "{}",
        '["x"]',
        '{"a":"b"}',
        "[null]",
        "-0",
      ],
      boolean: [
        '"true"',
        '"false"',
        '"1"',
        '"yes"',
        '""',
        "1",
        "0",
        "1.0",
        "[]",
        "{}",
        "[true]",
        '{"value":true}',
        "1e400",
        "-1e400",
        "99999999999999999999999",
      ],
    };
    const wrongValue = (f: Field): string => {
      const pool = [...WRONG_FOR[f.type]];
      if (!f.nullable) pool.push("null");
      if (chance(0.08)) return chance(0.5) ? deepArray(10_000) : deepObject(int(1000, 10_000));
      if (f.type === "string" && chance(0.15)) return String(int(-1e9, 1e9));
      return pick(pool);
    };
    const WHITESPACE = [" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u2028", "\u000b", "\f"];
    const badStringValue = (f: Field): string | null => {
      // A value of the right type that breaks a constraint; null when the field has none.
      const options: Array<() => string> = [];
      if (f.max)
        options.push(() =>
          JSON.stringify(
            randomString(f.max as number) +
              randomUnicode(int(1, f.max === 255 ? 5000 : 200_000)).slice(0, int(1, 400_000)),
          ),
        );
      if (f.min)
        options.push(
          () => '""',
          () => JSON.stringify(Array.from({ length: int(1, 40) }, () => pick(WHITESPACE)).join("")),
        );
      return options.length ? pick(options)() : null;
    };
    const UNKNOWN_KEYS = [
      "id",
      "uid",
      "secret",
      "token",
      "owner_id",
      "organization_id",
      "created_at",
      "updated_at",
      "admin",
      "is_admin",
      "role",
      "scope",
      "",
      " ",
      "NAME",
      "Name",
      "name ",
      " name",
      "ｎａｍｅ",
      "read",
      "enabled",
      "owner",
      "data",
      "metadata",
      "prototype",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "$where",
      "name\u0000",
    ];
    const unknownKey = (kind: BodyKind): string => {
      for (;;) {
        const k = chance(0.6)
          ? pick(UNKNOWN_KEYS)
          : chance(0.5)
            ? randomString(int(1, 40), LETTERS)
            : randomUnicode(int(1, 12));
        if (!(k in FIELDS[kind]) && !/^(__proto__|constructor)$/.test(k)) return k;
      }
    };
    const anyJsonValue = (): string =>
      pick(['"x"', "1", "true", "null", "[]", "{}", '{"a":1}', JSON.stringify(randomUnicode(int(0, 20))), "1e400"]);

    const wrongTypeBody = (kind: BodyKind): { body: string; label: string } => {
      const fields = Object.keys(FIELDS[kind]);
      const f = pick(fields);
      const entries = someOf(kind, f).map(([k, v]): [string, string] =>
        k === f ? [k, wrongValue(FIELDS[kind][f] as Field)] : [k, v],
      );
      return { body: objectText(entries), label: `wrong type for ${f}` };
    };
    const constraintBody = (kind: BodyKind): { body: string; label: string } | null => {
      const candidates = Object.entries(FIELDS[kind]).filter(([, f]) => f.type === "string" && (f.max || f.min));
      if (!candidates.length) return null;
      const [name, f] = pick(candidates);
      const bad = badStringValue(f);
      if (bad === null) return null;
      const entries = someOf(kind, name).map(([k, v]): [string, string] => (k === name ? [k, bad] : [k, v]));
      return { body: objectText(entries), label: `${name} breaks a length or blank rule` };
    };
    const unknownFieldBody = (kind: BodyKind): { body: string; label: string } => {
      const entries = someOf(kind);
      const n = int(1, 3);
      const keys: string[] = [];
      while (keys.length < n) {
        const k = unknownKey(kind);
        if (keys.includes(k)) continue; // distinct: duplicated keys are a defect of their own
        keys.push(k);
        entries.splice(int(0, entries.length), 0, [k, anyJsonValue()]);
      }
      return { body: objectText(entries), label: `unknown field ${JSON.stringify(keys)}` };
    };
    const NON_OBJECTS = [
      "[]",
      "[{}]",
      '"x"',
      '""',
      "1",
      "0",
      "-1",
      "true",
      "false",
      "1e400",
      JSON.stringify([JSON.parse(validBody("createApp"))]),
    ];
    const nonObjectBody = (kind: BodyKind): { body: string; label: string } => {
      // `null` only where no reading of "optional body" could make it valid.
      const pool = kind === "createApp" ? [...NON_OBJECTS, "null"] : NON_OBJECTS;
      return { body: pick(pool), label: "body is not an object" };
    };
    const missingRequiredBody = (kind: BodyKind): { body: string; label: string } | null => {
      if (kind !== "createApp") return null;
      return {
        body: pick(["{}", '{"description":"no name"}', '{"description":null}', "{ }"]),
        label: "name is missing",
      };
    };
    const protoBody = (kind: BodyKind): { body: string; label: string } => {
      const base = validBody(kind).slice(1, -1);
      const variants = [
        `{"__proto__":{"isAdmin":true},${base}}`,
        `{${base},"__proto__":{"write_enabled":true}}`,
        `{"constructor":{"prototype":{"isAdmin":true}},${base}}`,
        `{${base},"constructor":{"prototype":{"polluted":1}}}`,
        `{"\\u005f_proto__":{"x":1},${base}}`,
        `{${base},"__proto__":null}`,
        `{${base},"meta":{"__proto__":{"x":1}}}`,
        `[{"__proto__":{"x":1}}]`,
        deepArray(10_000, '{"__proto__":{"x":1}}'),
      ];
      return { body: pick(variants), label: "prototype pollution" };
    };
    const duplicateKeyBody = (kind: BodyKind): { body: string; label: string } => {
      // Duplicated keys where no reading makes the body valid: the last value is wrong, or an unknown key rides along.
      const [k, v] = pick(TEMPLATE[kind]);
      const f = FIELDS[kind][k] as Field;
      return chance(0.5)
        ? {
            body: objectText([...someOf(kind), [k, v], [k, wrongValue(f)]]),
            label: `duplicated ${k}, last value wrong`,
          }
        : {
            body: objectText([
              [k, v],
              [k, v],
              [unknownKey(kind), "1"],
            ]),
            label: `duplicated ${k} with an unknown field`,
          };
    };
    const hugeNumberBody = (kind: BodyKind): { body: string; label: string } => {
      const [k] = pick(TEMPLATE[kind]);
      const n = pick([
        "1e309",
        "-1e309",
        "1".repeat(int(20, 400)),
        `0.${"0".repeat(400)}1`,
        "123456789012345678901234567890e999",
        "-0.0e-999",
      ]);
      return {
        body: objectText(someOf(kind, k).map(([kk, v]): [string, string] => (kk === k ? [kk, n] : [kk, v]))),
        label: `huge number for ${k}`,
      };
    };
    const nestedBody = (kind: BodyKind): { body: string; label: string } => {
      const [k] = pick(TEMPLATE[kind]);
      const depth = pick([1000, 10_000, 10_000, 50_000]);
      const v = chance(0.5) ? deepArray(depth) : deepObject(depth);
      return chance(0.3)
        ? { body: deepArray(depth, chance(0.5) ? validBody(kind) : ""), label: `body nested ${depth} deep` }
        : {
            body: objectText(someOf(kind, k).map(([kk, vv]): [string, string] => (kk === k ? [kk, v] : [kk, vv]))),
            label: `${k} nested ${depth} deep`,
          };
    };

    /** Malformed JSON made from a valid body. */
    const malformed = (kind: BodyKind): { body: string | Buffer; label: string } => {
      const valid = validBody(kind);
      const inner = valid.slice(1, -1);
      const firstKey = TEMPLATE[kind][0]?.[0] as string;
      const makers: Array<() => { body: string | Buffer; label: string }> = [
        () => ({ body: valid.slice(0, int(1, valid.length - 1)), label: "truncated" }),
        () => ({
          body: valid + pick(["x", "}", "]", ",", "{}", "null", " 1", "\u0000", "//c", "/*c*/", "'", '"', ",{}", "\\"]),
          label: "trailing garbage",
        }),
        () => ({
          body: `{${inner},${JSON.stringify(firstKey)}:${pick(["NaN", "Infinity", "-Infinity", "undefined", "+1", ".5", "1.", "01", "0x10", "1e", "--1", "tru", "nul"])}}`,
          label: "not a JSON value",
        }),
        () => ({ body: valid.replace(/"/g, "'"), label: "single quotes" }),
        () => ({ body: valid.replace(/"([a-z_]+)":/g, "$1:"), label: "unquoted keys" }),
        () => ({ body: `{${inner},}`, label: "trailing comma" }),
        () => ({ body: `{,${inner}}`, label: "leading comma" }),
        () => ({ body: `{/* c */${inner}}`, label: "comment" }),
        () => ({
          body: `{${JSON.stringify(firstKey)}:"a${pick(["\\x41", "\\u12", "\\q", "\\z", "\u0001", "\n", "\t"])}b"}`,
          label: "bad string",
        }),
        () => ({
          body: pick([
            "{",
            "[",
            "}",
            "]",
            "{{}}",
            "{:}",
            '{"a" "b"}',
            '{"a":}',
            '{"a"}',
            '{"a":1 "b":2}',
            "[1,]",
            " { ",
            "\u0000",
          ]),
          label: "unbalanced",
        }),
        () => ({ body: "{".repeat(int(1, 20_000)), label: "unclosed nesting" }),
        () => ({ body: "[".repeat(int(1, 20_000)), label: "unclosed arrays" }),
        () => ({
          body: Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(valid)]),
          label: "binary before JSON",
        }),
        () => ({ body: `${valid}${valid}`, label: "two documents" }),
        () => ({ body: valid.replace("{", "{ \u00a0"), label: "non-JSON whitespace" }),
        () => ({ body: `"${randomString(int(1, 200), LETTERS)}`, label: "unterminated string" }),
      ];
      const m = pick(makers)();
      if (typeof m.body === "string" && m.body.trim() === "") return { body: "{", label: "unbalanced" };
      return m;
    };

    // ----- Authorization headers -----------------------------------------------------------------

    const jwt = (header: object, payload: object, sign: (input: string) => string): string => {
      const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
      return `${input}.${sign(input)}`;
    };
    const now = Math.floor(Date.now() / 1000);
    const forgedClaims = {
      iss: laurel.authUrl,
      sub: org,
      client_id: keeper.uid,
      scope: "oauth_applications authorization_tokens",
      jti: randomUUID(),
      iat: now,
      exp: now + 3600,
    };
    const mutateToken = (v: string): string => {
      const i = int(0, v.length - 1);
      const options = [
        () => v.slice(0, i),
        () => v + randomString(int(1, 5), LETTERS),
        () => v.slice(0, i) + (v[i] === "A" ? "B" : "A") + v.slice(i + 1),
        () => (v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase()),
        () => ` ${v}`,
        () => `${v} `,
        () => v.split("").reverse().join(""),
      ];
      for (;;) {
        const m = pick(options)();
        if (m !== v) return m;
      }
    };
    /** A JWT that no longer verifies: interior characters only (the last one may carry only padding bits). */
    const mutateJwt = (v: string): string => {
      const [h, p, s] = v.split(".") as [string, string, string];
      const i = int(1, p.length - 2);
      return pick([
        () => `${h}.${p.slice(0, i)}${p[i] === "A" ? "B" : "A"}${p.slice(i + 1)}.${s}`,
        () => `${h}.${p}.${s.slice(0, int(1, 40))}`,
        () => `${h}.${p}`,
        () => `${h}.${p}.`,
        () => `${p}.${h}.${s}`,
        () => `${h}.${p}.${s}.${s}`,
        () => `${h}${p}${s}`,
      ])();
    };
    const badAuthorization = (validToken: string): { value: string | null; label: string } => {
      const [p, s] = eventsBearer.split(".") as [string, string, string];
      const makers: Array<() => { value: string | null; label: string }> = [
        () => ({ value: null, label: "no Authorization" }),
        () => ({ value: "", label: "empty Authorization" }),
        () => ({ value: randomString(int(1, 200)).trim() || "x", label: "garbage" }),
        () => ({
          value:
            `${pick(["Digest", "Token", "Negotiate", "NTLM", "Bearer", "Key", "Basic"])} ${pick(["", "x", "=", randomString(int(1, 50), LETTERS)])}`.trim(),
          label: "wrong scheme or nothing after it",
        }),
        () => ({
          value: `Basic ${pick(["!!!", "%%%", "@@@@", "====", "*", "..", randomString(int(1, 60), "!#$%&()*,-.;<>?@[]^_`{|}~")])}`,
          label: "not base64",
        }),
        () => ({ value: `Basic ${b64(`${randomString(int(1, 80))}:`)}`, label: "unknown token" }),
        () => ({ value: `Basic ${b64(`${mutateToken(validToken)}:`)}`, label: "altered token" }),
        () => ({ value: `Basic ${b64(pick([":", `:${validToken}`, "::", ""]))}`, label: "empty username" }),
        () => ({ value: `Basic ${b64(`${randomString(int(513, 3000), LETTERS)}:`)}`, label: "overlong token" }),
        () => ({ value: `Basic ${"A".repeat(int(8000, 15000))}`, label: "huge header" }),
        () => ({ value: `Basic ${Buffer.from([0xff, 0xfe, 0x80, 0x81]).toString("latin1")}`, label: "latin1 bytes" }),
        () => ({ value: `Bearer ${validToken}`, label: "authorization token as Bearer" }),
        () => ({
          value: `Bearer ${pick(["a.b.c", "..", "x", randomString(int(10, 300), LETTERS), `${p}.${s}.`, `${p}..`, "a".repeat(5000)])}`,
          label: "garbage Bearer",
        }),
        () => ({ value: `Bearer ${jwt({ alg: "none", typ: "JWT" }, forgedClaims, () => "")}`, label: "alg none JWT" }),
        () => ({
          value: `Bearer ${jwt({ alg: "HS256", typ: "JWT" }, forgedClaims, (i) => createHmac("sha256", "secret").update(i).digest("base64url"))}`,
          label: "HS256 JWT",
        }),
        () => ({
          value: `Bearer ${p}.${b64url(JSON.stringify(forgedClaims))}.${s}`,
          label: "real signature, forged claims",
        }),
        () => ({ value: `Bearer ${mutateJwt(eventsBearer)}`, label: "altered JWT" }),
      ];
      return pick(makers)();
    };

    // ----- Bad path segments and query strings ----------------------------------------------------

    const enc = encodeURIComponent;
    const BAD_ORGS = [
      "not-a-uuid",
      org.toUpperCase(),
      org.replace(/-/g, ""),
      `{${org}}`,
      `${org}x`,
      org.slice(0, 35),
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      b.organization.id,
      enc("' OR 1=1--"),
      "%2F",
      `${org}%2Fx`,
      "%00",
      enc("é漢😀"),
      "1",
      "null",
      "%E0%A4%A",
      "%",
      "x".repeat(250),
    ];
    const badOrg = (): string =>
      chance(0.5)
        ? pick(BAD_ORGS)
        : pick([
            () => randomUUID(),
            () => enc(randomString(int(1, 60))),
            () => enc(randomUnicode(int(1, 20))),
            () => randomString(int(1, 150), LETTERS),
          ])();
    const BAD_IDS = [
      "abc",
      "null",
      "undefined",
      "NaN",
      "Infinity",
      "-Infinity",
      "-1",
      "0",
      "-0",
      "2147483648",
      "9223372036854775808",
      "99999999999999999999",
      "1e309",
      "%2F",
      "1%2F2",
      "%00",
      "%20",
      enc("'; DROP TABLE oauth_applications;--"),
      "%5B%5D",
      "%7B%7D",
      "1,2",
      enc("١"),
      enc("１"),
      enc("😀"),
      "%E0%A4%A",
      "%u0031",
      "9".repeat(250),
    ];
    const badId = (): string =>
      chance(0.5)
        ? pick(BAD_IDS)
        : pick([
            () => `zz${randomString(int(0, 30), LETTERS)}`,
            () => String(-int(1, 1e9)),
            () => String(int(2_147_483_648, 9e15)),
            () => "9".repeat(int(20, 150)),
            () => enc(randomUnicode(int(1, 10))),
            () => `${int(1, 9)}%2F${int(1, 9)}`,
          ])();
    /** Spellings of the victim's id that are not integers ("path ids that are not ... integers"). */
    const v = victim.id;
    const NON_INTEGER_IDS = [
      `${v}.5`,
      `${v}.9`,
      `0x${v.toString(16)}`,
      `0b${v.toString(2)}`,
      `0o${v.toString(8)}`,
      ...(v === 1 ? ["true"] : []),
    ];
    const BAD_PAGES = [
      "page=0",
      "page=-1",
      "page=-0",
      "page=1e309",
      "page=abc",
      "page=99999999999",
      "page=1000001",
      "page=NaN",
      "page=Infinity",
      "page=null",
      "page=",
      "page",
      "page=%00",
      "page=1%00",
      `page=${"9".repeat(10_000)}`,
      "page=1&page=2",
      "page=%EF%BC%91",
      "page=1,2",
      "page=1_0",
      "per=1000",
      "per=0",
      "page_size=101",
      // Not integers: must be refused, not rounded to page 1.
      "page=1.5",
      "page=2.5",
      "page=true",
      "page=0x2",
      "page=0b10",
      "page=0o2",
    ];
    const badPage = (): string =>
      chance(0.4)
        ? pick(BAD_PAGES)
        : pick([
            () => `page=${-int(0, 1e9)}`,
            () => `page=${int(1_000_001, 9e15)}`,
            () => `page=zz${enc(randomString(int(0, 20), LETTERS))}`,
            () => `page=${enc(randomUnicode(int(1, 8)))}`,
            // Repeated with different values (the same value again counts once).
            () => Array.from({ length: int(2, 200) }, (_, i) => `page=${i + 1}`).join("&"),
          ])();

    // ----- Content types ---------------------------------------------------------------------------

    const WRONG_TYPES: Array<(kind: BodyKind) => { type: string | null; body: string | Buffer }> = [
      (k) => ({ type: "text/plain", body: validBody(k) }),
      (k) => ({ type: "text/plain; charset=utf-8", body: validBody(k) }),
      (k) => ({ type: "text/html", body: `<p>${validBody(k)}</p>` }),
      () => ({ type: "application/xml", body: '<?xml version="1.0"?><app><name>x</name></app>' }),
      () => ({ type: "text/xml", body: "<app><name>x</name></app>" }),
      () => ({
        type: "multipart/form-data; boundary=XyZ",
        body: '--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--XyZ--\r\n',
      }),
      () => ({ type: "application/x-www-form-urlencoded", body: "name=x&description=y" }),
      (k) => ({ type: "application/octet-stream", body: Buffer.from(validBody(k)) }),
      (k) => ({ type: "application/json-patch+json", body: validBody(k) }),
      (k) => ({ type: "application/ld+json", body: validBody(k) }),
      (k) => ({ type: "application/vnd.api+json", body: validBody(k) }),
      (k) => ({ type: "application/jsonx", body: validBody(k) }),
      (k) => ({ type: "json", body: validBody(k) }),
      (k) => ({ type: "*/*", body: validBody(k) }),
      (k) => ({ type: "application/json, text/plain", body: validBody(k) }),
      (k) => ({ type: "text/json", body: validBody(k) }),
      () => ({ type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]) }),
      (k) => ({ type: null, body: validBody(k) }),
      (k) => ({ type: "", body: validBody(k) }),
    ];

    // ----- Generators per route --------------------------------------------------------------------

    type Gen = (r: ApiRoute) => Case | null;
    const apiCase = (
      r: ApiRoute,
      group: string,
      label: string,
      over: Partial<Case> & { orgSeg?: string; appSeg?: string; query?: string; auth?: string | null },
    ): Case => {
      const path = r.path(over.orgSeg ?? org, over.appSeg ?? r.appId) + (over.query ? `?${over.query}` : "");
      const auth = over.auth === undefined ? r.auth : over.auth;
      const headers: Record<string, string> = {
        ...(auth === null ? {} : { authorization: auth }),
        ...(over.headers ?? {}),
      };
      let body = over.body;
      if (body === undefined && r.body && r.method !== "DELETE") {
        body = validBody(r.body);
        headers["content-type"] ??= "application/json";
      }
      return { route: r.id, group, label, method: r.method, path, headers, body, expect: over.expect };
    };
    /** DELETE bodies go to an application that does not exist, so a DELETE that ignored its body would change nothing. */
    const bodyTarget = (r: ApiRoute) => (r.method === "DELETE" ? { appSeg: MISSING_APP } : {});
    const bodyExpect = (r: ApiRoute, status: number) => (r.method === "DELETE" ? [status, 404] : [status]);
    const kindOf = (r: ApiRoute): BodyKind => r.body ?? "createApp";

    const GENERATORS: Record<string, { weight: number; gen: Gen }> = {
      auth: {
        weight: 4,
        gen: (r) => {
          const bad = badAuthorization(r.id === "POST rotate" ? rotator.token : adminToken);
          return apiCase(r, "bad Authorization", bad.label, { auth: bad.value, expect: [401] });
        },
      },
      permission: {
        weight: 1,
        gen: (r) => {
          const options: Array<[string, string]> = [["another organization's token", adminB]];
          // Any of the organization's scopes reads the organization itself.
          if (r.id !== "GET organization") options.push(["OAuth token without the scope", `Bearer ${eventsBearer}`]);
          if (r.method !== "GET") options.push(["read-only token", readerAuth]);
          if (r.id === "POST rotate") options.push(["rotation with an OAuth token", `Bearer ${tokensBearer}`]);
          const [label, auth] = pick(options);
          return apiCase(r, "not permitted", label, { auth, expect: [403] });
        },
      },
      org: {
        weight: 2,
        gen: (r) => apiCase(r, "bad organization id", "organization id", { orgSeg: badOrg() }),
      },
      id: {
        weight: 2,
        gen: (r) =>
          r.appId
            ? apiCase(r, "bad application id", "application id", { appSeg: badId(), expect: [400, 404, 414] })
            : null,
      },
      nonInteger: {
        weight: 0.5,
        gen: (r) =>
          r.appId
            ? apiCase(r, "non-integer application id", "victim id spelled as a non-integer", {
                appSeg: pick(NON_INTEGER_IDS),
                expect: [400],
              })
            : null,
      },
      page: {
        weight: 4,
        gen: (r) => (r.list ? apiCase(r, "absurd page", "page", { query: badPage(), expect: [400] }) : null),
      },
      contentType: {
        weight: 2,
        gen: (r) => {
          if (!r.parsesBody) return null;
          const w = pick(WRONG_TYPES)(kindOf(r));
          return apiCase(r, "wrong content type", `content-type ${JSON.stringify(w.type)}`, {
            ...bodyTarget(r),
            headers: w.type === null ? {} : { "content-type": w.type },
            body: w.body,
            expect: bodyExpect(r, 415),
          });
        },
      },
      tooLarge: {
        weight: 0.35,
        gen: (r) => {
          if (!r.parsesBody) return null;
          const size = int(MIB + 1, 3 * MIB);
          const pad = `{"description":"${"x".repeat(size)}"}`;
          const chunked = chance(0.4);
          const body: Case["body"] = chunked
            ? () =>
                Readable.from(
                  (function* () {
                    for (let i = 0; i < pad.length; i += 64 * 1024) yield Buffer.from(pad.slice(i, i + 64 * 1024));
                  })(),
                )
            : pad;
          return apiCase(r, "body over 1 MiB", `${size} bytes${chunked ? ", chunked" : ""}`, {
            ...bodyTarget(r),
            headers: { "content-type": "application/json" },
            body,
            expect: bodyExpect(r, 413),
          });
        },
      },
      malformed: {
        weight: 4,
        gen: (r) => {
          if (!r.parsesBody) return null;
          const m = malformed(kindOf(r));
          return apiCase(r, "malformed JSON", m.label, {
            ...bodyTarget(r),
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: bodyExpect(r, 400),
          });
        },
      },
      proto: {
        weight: 1.5,
        gen: (r) => {
          if (!r.parsesBody) return null;
          const m = protoBody(kindOf(r));
          return apiCase(r, "prototype pollution", m.label, {
            ...bodyTarget(r),
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: r.method === "DELETE" ? [400, 404] : [400, 422],
          });
        },
      },
      wrongType: {
        weight: 4,
        gen: (r) => {
          if (!r.body) return null;
          const m = wrongTypeBody(r.body);
          return apiCase(r, "wrong type", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [422],
          });
        },
      },
      constraint: {
        weight: 2,
        gen: (r) => {
          if (!r.body) return null;
          const m = constraintBody(r.body);
          return (
            m &&
            apiCase(r, "too long or blank", m.label, {
              headers: { "content-type": "application/json" },
              body: m.body,
              expect: [422],
            })
          );
        },
      },
      unknown: {
        weight: 3,
        gen: (r) => {
          if (!r.body) return null;
          const m = unknownFieldBody(r.body);
          return apiCase(r, "unknown field", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [422],
          });
        },
      },
      nonObject: {
        weight: 1,
        gen: (r) => {
          if (!r.body) return null;
          const m = nonObjectBody(r.body);
          return apiCase(r, "not an object", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [422],
          });
        },
      },
      missing: {
        weight: 1,
        gen: (r) => {
          if (!r.body) return null;
          const m = missingRequiredBody(r.body);
          return (
            m &&
            apiCase(r, "missing field", m.label, {
              headers: { "content-type": "application/json" },
              body: m.body,
              expect: [422],
            })
          );
        },
      },
      duplicate: {
        weight: 1,
        gen: (r) => {
          if (!r.body) return null;
          const m = duplicateKeyBody(r.body);
          return apiCase(r, "duplicated keys", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [400, 422],
          });
        },
      },
      hugeNumber: {
        weight: 1,
        gen: (r) => {
          if (!r.body) return null;
          const m = hugeNumberBody(r.body);
          return apiCase(r, "huge number", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [422],
          });
        },
      },
      nested: {
        weight: 0.7,
        gen: (r) => {
          if (!r.body) return null;
          const m = nestedBody(r.body);
          return apiCase(r, "deep nesting", m.label, {
            headers: { "content-type": "application/json" },
            body: m.body,
            expect: [422],
          });
        },
      },
      method: {
        weight: 0.3,
        gen: (r) => {
          const other = pick(
            r.id === "POST rotate"
              ? ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"]
              : r.id === "GET organization" || r.id === "PUT organization"
                ? ["POST", "DELETE", "PATCH", "OPTIONS", "PROPFIND"]
                : r.appId
                  ? ["POST", "PATCH", "OPTIONS", "PROPFIND"]
                  : ["PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"],
          );
          const c = apiCase(r, "wrong method", other, { expect: [404, 405] });
          return { ...c, method: other, body: undefined, headers: { authorization: r.auth } };
        },
      },
      combined: {
        weight: 1,
        gen: (r) => {
          // Several defects at once: only "4xx in the documented body" is asserted.
          const parts: Partial<Case> & { orgSeg?: string; appSeg?: string; query?: string; auth?: string | null } = {};
          if (chance(0.5)) parts.auth = badAuthorization(adminToken).value;
          if (chance(0.4)) parts.orgSeg = badOrg();
          if (r.appId && chance(0.4)) parts.appSeg = badId();
          if (r.list && chance(0.5)) parts.query = badPage();
          if (r.parsesBody) {
            const kind = kindOf(r);
            const m = pick([
              () => malformed(kind),
              () => protoBody(kind),
              () => unknownFieldBody(kind),
              () => wrongTypeBody(kind),
            ])();
            if (r.method === "DELETE") parts.appSeg ??= MISSING_APP;
            parts.body = m.body;
            parts.headers = chance(0.3)
              ? { "content-type": pick(["text/plain", "application/xml"]) }
              : { "content-type": "application/json" };
          }
          if (Object.keys(parts).length === 0) parts.auth = null;
          return apiCase(r, "several defects", "combined", parts);
        },
      },
    };

    /** Every value of the fixed lists once, then weighted random cases up to the quota. */
    const fixedCases = (r: ApiRoute): Case[] => {
      const out: Case[] = [];
      if (r.list) for (const q of BAD_PAGES) out.push(apiCase(r, "absurd page", "page", { query: q, expect: [400] }));
      for (const o of BAD_ORGS) out.push(apiCase(r, "bad organization id", "organization id", { orgSeg: o }));
      if (r.appId) {
        for (const id of BAD_IDS)
          out.push(apiCase(r, "bad application id", "application id", { appSeg: id, expect: [400, 404, 414] }));
        for (const id of NON_INTEGER_IDS)
          out.push(
            apiCase(r, "non-integer application id", "victim id spelled as a non-integer", {
              appSeg: id,
              expect: [400],
            }),
          );
      }
      if (r.parsesBody) {
        for (const w of WRONG_TYPES) {
          const x = w(kindOf(r));
          out.push(
            apiCase(r, "wrong content type", `content-type ${JSON.stringify(x.type)}`, {
              ...bodyTarget(r),
              headers: x.type === null ? {} : { "content-type": x.type },
              body: x.body,
              expect: bodyExpect(r, 415),
            }),
          );
        }
        out.push(
          apiCase(r, "body over 1 MiB", "1 MiB + 1", {
            ...bodyTarget(r),
            headers: { "content-type": "application/json" },
            body: `"${"x".repeat(MIB - 1)}"`,
            expect: bodyExpect(r, 413),
          }),
        );
      }
      return out;
    };

    const cases: Case[] = [];
    for (const r of ROUTES) {
      const mine = fixedCases(r);
      const gens = Object.values(GENERATORS);
      while (mine.length < PER_ROUTE) {
        const c = weighted(gens).gen(r);
        if (c) mine.push(c);
      }
      cases.push(...mine);
    }

    // ----- The token endpoint ----------------------------------------------------------------------

    const form = (params: Array<[string, string]>): string =>
      params.map(([k, val]) => `${enc(k)}=${enc(val)}`).join("&");
    const GOOD: Array<[string, string]> = [
      ["grant_type", "client_credentials"],
      ["client_id", keeper.uid],
      ["client_secret", keeper.secret as string],
      ["scope", "events"],
    ];
    const without = (k: string) => GOOD.filter(([kk]) => kk !== k);
    const withValue = (k: string, val: string) =>
      GOOD.map(([kk, vv]): [string, string] => (kk === k ? [kk, val] : [kk, vv]));
    const encodeAs = (params: Array<[string, string]>): { type: string; body: string } =>
      chance(0.5)
        ? { type: "application/x-www-form-urlencoded", body: form(params) }
        : { type: "application/json", body: JSON.stringify(Object.fromEntries(params)) };
    const tokenCase = (
      group: string,
      label: string,
      body: string | Buffer | undefined,
      headers: Record<string, string>,
      expect: number[],
      oauthErrors?: string[],
    ): Case => ({
      route: "POST oauth/token",
      group,
      label,
      method: "POST",
      path: "/oauth/token",
      headers,
      body,
      expect,
      oauthErrors,
    });
    const BAD_SCOPES = [
      "",
      " ",
      "admin",
      "events admin",
      "EVENTS",
      "events,oauth_applications",
      "events\toauth_applications",
      "openid",
      "*",
      "all",
      "events\u0000",
      "événements",
      "a".repeat(int(300, 5000)),
      "oauth_applications:write",
      "badges",
    ];
    const TOKEN_GENERATORS: Array<{ weight: number; gen: () => Case }> = [
      {
        weight: 2,
        gen: () => {
          const g = pick([
            null,
            "",
            "password",
            "authorization_code",
            "refresh_token",
            "CLIENT_CREDENTIALS",
            "client_credentials ",
            " client_credentials",
            "client-credentials",
            "urn:ietf:params:oauth:grant-type:jwt-bearer",
            randomString(int(1, 100), LETTERS),
          ]);
          const e = encodeAs(g === null ? without("grant_type") : withValue("grant_type", g));
          return tokenCase(
            "bad grant_type",
            `grant_type ${JSON.stringify(g)}`,
            e.body,
            { "content-type": e.type },
            [400],
            ["invalid_request", "unsupported_grant_type"],
          );
        },
      },
      {
        weight: 3,
        gen: () => {
          const variants: Array<() => Array<[string, string]>> = [
            () => withValue("client_secret", `${keeper.secret}x`),
            () => withValue("client_secret", mutateToken(keeper.secret as string)),
            () => withValue("client_secret", victim.secret as string),
            () => withValue("client_id", randomString(int(1, 80), LETTERS)),
            () => withValue("client_id", mutateToken(keeper.uid)),
            () => withValue("client_id", appB.uid),
            () => withValue("client_id", "x".repeat(int(1000, 10_000))),
            () => withValue("client_id", randomUnicode(int(1, 30))),
            () => without("client_secret"),
            () => without("client_id"),
            () => withValue("client_secret", ""),
            () => withValue("client_id", ""),
            () => GOOD.filter(([k]) => k !== "client_id" && k !== "client_secret"),
          ];
          const e = encodeAs(pick(variants)());
          return tokenCase(
            "bad client credentials",
            "client credentials",
            e.body,
            { "content-type": e.type },
            [401],
            ["invalid_client"],
          );
        },
      },
      {
        weight: 2,
        gen: () => {
          const creds = pick<[string, string]>([
            [`Basic ${pick(["!!!", "%%%", "", "=", randomString(20, "!#$%&()*")])}`, "not base64"],
            [`Basic ${b64("no-colon")}`, "no colon"],
            [`Basic ${b64(`:${keeper.secret}`)}`, "empty client id"],
            [`Basic ${b64(`${keeper.uid}:${mutateToken(keeper.secret as string)}`)}`, "wrong secret"],
            [`Basic ${b64(`%ZZ:${keeper.secret}`)}`, "bad percent-encoding"],
            [`Basic ${b64(`${randomString(30, LETTERS)}:${randomString(30, LETTERS)}`)}`, "unknown client"],
            [`Bearer ${eventsBearer}`, "Bearer instead of Basic"],
            [`Digest ${randomString(20, LETTERS)}`, "Digest"],
            [`Basic ${"A".repeat(int(5000, 12000))}`, "huge"],
          ]);
          const e = encodeAs(GOOD.filter(([k]) => k === "grant_type" || k === "scope"));
          return tokenCase(
            "bad Basic client authentication",
            creds[1],
            e.body,
            { "content-type": e.type, authorization: creds[0] },
            [401],
            ["invalid_client"],
          );
        },
      },
      {
        weight: 1,
        gen: () => {
          // With Basic, a body may repeat the same client_id but never carry a secret or another id.
          const e = encodeAs(pick([GOOD, withValue("client_id", appB.uid), withValue("client_secret", "x")]));
          return tokenCase(
            "credentials twice",
            "Basic and body",
            e.body,
            { "content-type": e.type, authorization: `Basic ${b64(`${keeper.uid}:${keeper.secret}`)}` },
            [400],
            ["invalid_request"],
          );
        },
      },
      {
        weight: 2,
        gen: () => {
          const s = pick(BAD_SCOPES);
          const e = encodeAs(chance(0.1) ? without("scope") : withValue("scope", s));
          return tokenCase(
            "bad scope",
            `scope ${JSON.stringify(s.slice(0, 40))}`,
            e.body,
            { "content-type": e.type },
            [400],
            ["invalid_scope", "invalid_request"],
          );
        },
      },
      {
        weight: 1,
        gen: () => {
          const k = pick(GOOD.map(([kk]) => kk));
          const dup = chance(0.5) ? pick(GOOD.map(([, vv]) => vv)) : randomString(int(1, 20), LETTERS);
          const params = [...GOOD, [k, dup] as [string, string]];
          return tokenCase(
            "duplicated parameter",
            `${k} twice`,
            form(params),
            { "content-type": "application/x-www-form-urlencoded" },
            [400],
            ["invalid_request"],
          );
        },
      },
      {
        weight: 2,
        gen: () => {
          const k = pick(GOOD.map(([kk]) => kk));
          const val = pick([
            "1",
            "true",
            "null",
            "[]",
            "{}",
            '["client_credentials"]',
            JSON.stringify([GOOD.find(([kk]) => kk === k)?.[1]]),
            '{"a":1}',
            "1e400",
            deepArray(10_000),
          ]);
          const body = `{${GOOD.map(([kk, vv]) => `${JSON.stringify(kk)}:${kk === k ? val : JSON.stringify(vv)}`).join(",")}}`;
          return tokenCase(
            "wrong JSON type",
            `${k} = ${val.slice(0, 20)}`,
            body,
            { "content-type": "application/json" },
            Buffer.byteLength(body) > 16 * 1024 ? [413] : [400],
            ["invalid_request"],
          );
        },
      },
      {
        weight: 2,
        gen: () => {
          const valid = JSON.stringify(Object.fromEntries(GOOD));
          const body = pick([
            () => valid.slice(0, int(1, valid.length - 1)),
            () => `${valid}${pick(["x", "}", ",", "null"])}`,
            () => `{"grant_type":NaN}`,
            () => valid.replace(/"/g, "'"),
            () => `{"__proto__":{"x":1},${valid.slice(1)}`,
            () => `{"constructor":{"prototype":{"x":1}},${valid.slice(1)}`,
            () => "{".repeat(int(1, 10_000)),
            () => deepArray(10_000, valid),
            () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(valid)]),
          ])();
          return tokenCase(
            "malformed JSON",
            "malformed",
            body,
            { "content-type": "application/json" },
            Buffer.byteLength(body) > 16 * 1024 ? [413] : [400],
            ["invalid_request"],
          );
        },
      },
      {
        weight: 1,
        gen: () => {
          const body = pick([
            "%%%",
            "=&=&=",
            "&&&&",
            "grant_type",
            `grant_type=%ZZ&${form(without("grant_type"))}`,
            randomString(int(1, 200)),
            form(without("grant_type")).replace(/=/g, ""),
          ]);
          return tokenCase(
            "malformed form",
            "form",
            body,
            { "content-type": "application/x-www-form-urlencoded" },
            [400, 401],
            ["invalid_request", "invalid_client", "unsupported_grant_type"],
          );
        },
      },
      {
        weight: 1.5,
        gen: () => {
          const type = pick([
            "text/plain",
            "application/xml",
            "multipart/form-data; boundary=XyZ",
            "application/octet-stream",
            "text/html",
            "application/jsonx",
            "*/*",
            null,
          ]);
          const body = type?.startsWith("multipart")
            ? `--XyZ\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--XyZ--\r\n`
            : form(GOOD);
          return tokenCase(
            "wrong content type",
            `content-type ${JSON.stringify(type)}`,
            body,
            type === null ? {} : { "content-type": type },
            [400],
            ["invalid_request"],
          );
        },
      },
      {
        weight: 0.3,
        gen: () => {
          const json = chance(0.5);
          const body = json
            ? `{"grant_type":"client_credentials","scope":"events","pad":"${"x".repeat(int(MIB + 1, 2 * MIB))}"}`
            : `${form(GOOD)}&pad=${"x".repeat(int(16 * 1024, 200 * 1024))}`;
          return tokenCase(
            "body too large",
            json ? "JSON over 1 MiB" : "form over 16 KiB",
            body,
            { "content-type": json ? "application/json" : "application/x-www-form-urlencoded" },
            [413],
            ["invalid_request"],
          );
        },
      },
    ];
    for (let n = 0; n < PER_ROUTE; n++) cases.push(weighted(TOKEN_GENERATORS).gen());

    // ----- Run -------------------------------------------------------------------------------------

    const outcomes: Outcome[] = new Array(cases.length);
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const i = next++;
          outcomes[i] = await send(cases[i] as Case);
        }
      }),
    );
    t.comment(`${cases.length} requests in ${Date.now() - started} ms`);

    // ----- Assert every answer, grouped by route and kind of defect --------------------------------

    const byRoute = new Map<RouteId, number>();
    const statuses = new Map<number, number>();
    for (const [i, c] of cases.entries()) {
      byRoute.set(c.route, (byRoute.get(c.route) ?? 0) + 1);
      const o = outcomes[i] as Outcome;
      statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
    }
    t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    const groups = new Map<string, number[]>();
    for (const [i, c] of cases.entries()) {
      const key = `${c.route} / ${c.group}`;
      groups.set(key, [...(groups.get(key) ?? []), i]);
    }
    for (const [key, indexes] of groups) {
      await t.test(key, async (t) => {
        t.plan(indexes.length);
        for (const i of indexes) {
          const c = cases[i] as Case;
          const o = outcomes[i] as Outcome;
          const problems = c.route === "POST oauth/token" ? tokenProblems(c, o, secrets) : apiProblems(c, o, secrets);
          t.same(
            problems,
            [],
            ascii(`[${i}] ${c.label}`),
            problems.length
              ? { request: describe(c), status: o.status, body: ascii(o.text.slice(0, 400)), seed: SEED }
              : {},
          );
        }
      });
    }
    t.ok(cases.length >= 1000, `${cases.length} bad requests in all`);
    for (const r of [...ROUTES.map((x) => x.id), "POST oauth/token" as RouteId]) {
      t.ok((byRoute.get(r) ?? 0) >= PER_ROUTE, `${byRoute.get(r) ?? 0} bad requests at ${r}`);
    }

    // ----- Nothing was created, changed or lost; the server still works -----------------------------

    const after = await snapshot(org, admin);
    t.same(after.apps, before.apps, "organization A's OAuth applications are exactly those of the setup, unchanged");
    t.same(after.organization, before.organization, "organization A's profile is unchanged");
    t.equal(after.appsTotal, 2);
    t.same(
      after.tokens,
      before.tokens,
      "organization A's authorization tokens are exactly those of the setup, unchanged",
    );
    t.equal(after.tokensTotal, 3);
    const afterB = await snapshot(b.organization.id, adminB);
    t.same(afterB, beforeB, "organization B is untouched");

    const health = await send({ method: "GET", path: "/healthz", headers: {} });
    t.equal(health.status, 200, "/healthz still answers 200");
    const rotatorStill = await json("GET", tokensPath, rotatorAuth);
    t.equal(rotatorStill.status, 200, "the rotation token was never rotated");
    const bearer = `Bearer ${await accessToken(keeper, "oauth_applications")}`;
    const got = await json("GET", `${appsPath}/${keeper.id}`, bearer);
    t.equal(got.status, 200, "the application's secret still issues working access tokens");
    t.same(
      stableApp(got.body.data),
      before.apps.find((x) => x.id === keeper.id),
    );
    const created = await json("POST", appsPath, admin, { name: "after the storm" });
    t.equal(created.status, 201, "a valid request is still served");
    t.equal(created.body.data.name, "after the storm");
  },
);

/**
 * Malformed HTTP itself (header too large, impossible lengths): rejected by Node's parser before
 * routing, but the answer is still the documented error body.
 */
t.test("protocol-level errors answer 4xx in the documented error body", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Raw Org");
  const port = Number(new URL(laurel.origin).port);
  const path = `/v1/organizations/${organization.id}/oauth_applications`;
  const raw = (text: string): Promise<{ status: number; headers: Record<string, string>; body: string }> =>
    new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let data = Buffer.alloc(0);
      const done = () => {
        socket.destroy();
        const s = data.toString("latin1");
        const end = s.indexOf("\r\n\r\n");
        const head = (end === -1 ? s : s.slice(0, end)).split("\r\n");
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const c = line.indexOf(":");
          if (c > 0) headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
        }
        const length = Number(headers["content-length"] ?? Number.NaN);
        const body =
          end === -1
            ? ""
            : Buffer.from(s.slice(end + 4), "latin1")
                .subarray(0, Number.isNaN(length) ? undefined : length)
                .toString("utf8");
        resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(s)?.[1] ?? 0), headers, body });
      };
      socket.on("data", (c: Buffer) => {
        data = Buffer.concat([data, c]);
        const s = data.toString("latin1");
        const end = s.indexOf("\r\n\r\n");
        const cl = /\r\ncontent-length: *(\d+)/i.exec(s);
        if (end !== -1 && cl && data.length >= end + 4 + Number(cl[1])) done();
      });
      socket.on("error", () => undefined);
      socket.on("close", done);
      socket.setTimeout(5000, done);
      socket.write(text, "latin1");
    });
  const auth = basic(authorization_token.token);
  const rawCases: Array<[string, string]> = [
    [
      "Authorization header over the header limit",
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${"A".repeat(70_000)}\r\n\r\n`,
    ],
    [
      "Content-Length is not a number",
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
    ],
    [
      "Content-Length and Transfer-Encoding together",
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ["header line without a colon", `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization ${auth}\r\n\r\n`],
    ["raw non-ASCII in the path", `GET ${path}/\u00e9 HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`],
    [
      "invalid percent-encoding in the path",
      `GET ${path}/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`,
    ],
    [
      "path segment over the router's length limit",
      `GET ${path}/${"9".repeat(300)} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`,
    ],
  ];
  for (const [label, text] of rawCases) {
    const res = await raw(text);
    const o: Outcome = { status: res.status, headers: res.headers, text: res.body };
    const c: Case = { route: "GET apps", group: "protocol", label, method: "RAW", path, headers: {} };
    const problems = apiProblems(c, o, [authorization_token.token]);
    t.same(problems, [], label, problems.length ? { status: res.status, body: res.body.slice(0, 300) } : {});
  }
  t.equal((await fetch(`${laurel.origin}/healthz`)).status, 200, "the server is still up");
});

/**
 * Duplicated keys in a JSON body are ambiguous (RFC 8259 §4; I-JSON forbids them): the value a
 * client's parser sees may differ from the server's. Refused rather than silently resolved.
 */
t.test("a JSON body with duplicated keys is refused", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Duplicate Keys Org");
  const auth = basic(authorization_token.token);
  const base = `/v1/organizations/${organization.id}/oauth_applications`;
  const res = await send({
    method: "POST",
    path: base,
    headers: { authorization: auth, "content-type": "application/json" },
    body: '{"name":"first","name":"second"}',
  });
  t.same(
    apiProblems(
      { route: "POST apps", group: "dup", label: "dup", method: "POST", path: base, headers: {}, expect: [400, 422] },
      res,
      [],
    ),
    [],
    "4xx in the error body",
    { body: res.text.slice(0, 300) },
  );
  const list = await json("GET", base, auth);
  t.equal(list.body.metadata.total_count, 0, "no application was created");
});

/** The bodies of token creation and rotation are optional; leaving them out is not bad input. */
t.test("the optional JSON bodies of token creation and rotation may be left out", async (t) => {
  const { organization, authorization_token } = await laurel.createOrganization("Optional Bodies Org");
  const admin = basic(authorization_token.token);
  const base = `/v1/organizations/${organization.id}/authorization_tokens`;
  const variants: Array<{ label: string; headers: Record<string, string>; body?: string }> = [
    { label: "no body, no content type", headers: {} },
    { label: "empty body with application/json", headers: { "content-type": "application/json" }, body: "" },
  ];
  for (const { label, headers, body } of variants) {
    const created = await send({ method: "POST", path: base, headers: { authorization: admin, ...headers }, body });
    t.equal(created.status, 201, `create: ${label}`, { body: created.text.slice(0, 300) });
    if (created.status !== 201) continue;
    const tok = JSON.parse(created.text).data as AuthToken;
    const rotated = await send({
      method: "POST",
      path: `${base}/rotate`,
      headers: { authorization: basic(tok.token), ...headers },
      body,
    });
    t.equal(rotated.status, 201, `rotate: ${label}`, { body: rotated.text.slice(0, 300) });
  }
});
