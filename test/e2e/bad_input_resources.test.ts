import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * The bad-request run over the interface's later resources: authorized issuers (`issuers`,
 * `grantors`), pathways and recommendations. Every operation the OpenAPI document names under them
 * gets seeded bad requests, each with exactly one defect drawn from the operation's own documented
 * schema (a malformed body, a field of the wrong type, too long, not a UUID, missing, unknown, a
 * NUL; a path id that names nothing; a bad page, sort or filter; a wrong content type; no or
 * another organization's credential). Every answer must be a 4xx in the documented error body,
 * never a 5xx, and afterwards every list of both organizations must read as before.
 *
 * Reproduce a run with `BAD_INPUT_SEED=<seed>`; `BAD_INPUT_PER_ROUTE` sets the count per operation.
 */
const SEED = Number(process.env.BAD_INPUT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PER_ROUTE = Number(process.env.BAD_INPUT_PER_ROUTE ?? 120);
const CONCURRENCY = 6;
const RESOURCES = /^\/v1\/organizations\/\{organization_id\}\/(issuers|grantors|pathways|recommendations)(\/|$)/;

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

interface Schema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
}
interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, unknown>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A bad request: what it sends and what it is, for the report. */
interface Case {
  key: string;
  defect: string;
  method: string;
  path: string;
  auth: string | null;
  body?: string;
  contentType?: string;
}

const NOT_FOUND_ID = "00000000-0000-4000-8000-000000000000";

t.test(`bad requests to issuers, grantors, pathways and recommendations (seed ${SEED})`, async (t) => {
  t.comment(`seed ${SEED} (reproduce with BAD_INPUT_SEED=${SEED})`);
  const laurel: TestLaurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);

  // A live world for the defects to miss: a grantor and an issuer with an accepted authorization,
  // a draft and a published pathway with an earner, a recommendation; each organization's credential.
  const a = await organization(laurel, "Fuzzed School");
  const g = await organization(laurel, "Fuzzed Guild");
  const [first, second, done] = await Promise.all(
    ["Fuzz one", "Fuzz two", "Fuzz done"].map((name) => createTemplate(laurel, a, { name })),
  );
  const guildTemplate = await createTemplate(laurel, g, { name: "Guild template" });
  const granted = await api("POST", `/organizations/${g.id}/issuers`, g.auth, {
    issuer_organization_id: a.id,
    badge_template_ids: [guildTemplate.id],
  });
  t.equal(granted.status, 201);
  t.equal((await api("PUT", `/organizations/${a.id}/grantors/${granted.body.data.id}/accept`, a.auth)).status, 200);
  const pathwayBody = {
    name: "Fuzz path",
    completion_badge_template_id: done.id,
    milestones: [{ name: "One", badge_template_ids: [first.id, second.id], required: 1 }],
  };
  const draft = (await api("POST", `/organizations/${a.id}/pathways`, a.auth, pathwayBody)).body.data;
  const published = (await api("POST", `/organizations/${a.id}/pathways`, a.auth, pathwayBody)).body.data;
  t.equal((await api("PUT", `/organizations/${a.id}/pathways/${published.id}/publish`, a.auth)).status, 200);
  const badge = await api("POST", a.badges, a.auth, issueBody(first.id));
  await trpc(laurel, "badges.accept", { badge_id: badge.body.data.id });
  const recommendation = await api("POST", `/organizations/${a.id}/recommendations`, a.auth, {
    badge_template_id: second.id,
    recipient_email: "next@example.org",
  });
  t.equal(recommendation.status, 201);

  const snapshot = async () => {
    const read = async (org: { id: string; auth: string }, path: string) => {
      const res = await api(
        "GET",
        `/organizations/${org.id}/${path}${path.includes("?") ? "&" : "?"}per=100`,
        org.auth,
      );
      if (res.status !== 200) throw new Error(`snapshot of ${path}: ${res.status}`);
      return res.body;
    };
    return {
      issuers: await read(g, "issuers"),
      grantors: await read(a, "grantors"),
      pathways: await read(a, "pathways"),
      earners: await read(a, `pathways/${published.id}/earners`),
      recommendations: await read(a, "recommendations"),
      guildPathways: await read(g, "pathways"),
    };
  };
  const before = await snapshot();

  const docRes = await fetch(`${laurel.origin}/openapi.json`);
  const doc = (await docRes.json()) as OpenApiDocument;
  const resolve = (s: Schema | undefined): Schema | undefined => {
    if (!s?.$ref) return s;
    return resolve(doc.components?.schemas?.[s.$ref.replace("#/components/schemas/", "")]);
  };

  // Each path parameter names a live resource of `a` (so the defect is elsewhere), or one of
  // another kind or none at all when the defect is the id.
  const liveId: Record<string, string> = {
    organization_id: a.id,
    issuer_authorization_id: granted.body.data.id,
    pathway_id: draft.id,
    recommendation_id: recommendation.body.data.id,
  };
  const fill = (path: string, ids: Record<string, string>) =>
    `${path.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? NOT_FOUND_ID)}`;

  const operations = Object.entries(doc.paths)
    .filter(([path]) => RESOURCES.test(path))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post", "put", "delete"].includes(method))
        .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method: method.toUpperCase(), op })),
    );
  t.ok(operations.length >= 14, `the document names the resources' operations (${operations.length})`);
  for (const name of ["issuers", "grantors", "pathways", "recommendations"])
    t.ok(
      operations.some((o) => o.path.includes(`/${name}`)),
      `${name}: walked`,
    );

  /** A value of the wrong JSON type for `schema` (never one it accepts). */
  const wrongType = (schema: Schema): unknown => {
    const types = new Set(
      [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((x) => [resolve(x)?.type ?? []].flat()),
    );
    const candidates: unknown[] = [
      ...(types.has("string") ? [] : ["text"]),
      ...(types.has("integer") || types.has("number") ? [] : [42]),
      ...(types.has("boolean") ? [] : [true]),
      ...(types.has("array") ? [] : [["x"]]),
      ...(types.has("object") ? [] : [{ nested: 1 }]),
      ...(types.has("null") ? [] : [null]),
    ];
    return pick(candidates);
  };

  /** A valid body for the operation (the world's own values), which each case then breaks once. */
  const validBody = (key: string): Record<string, unknown> | undefined => {
    if (key.startsWith("POST") && key.endsWith("/issuers"))
      return { issuer_organization_id: g.id, badge_template_ids: [first.id] };
    if (key.startsWith("POST") && key.endsWith("/pathways")) return structuredClone(pathwayBody);
    if (key.startsWith("PUT") && key.endsWith("/pathways/{pathway_id}")) return { name: "Renamed" };
    if (key.startsWith("POST") && key.endsWith("/recommendations"))
      return { badge_template_id: first.id, recipient_email: "fuzz@example.org", message: "Next" };
    return undefined;
  };

  const cases: Case[] = [];
  for (const { key, path, method, op } of operations) {
    const schema = resolve(op.requestBody?.content?.["application/json"]?.schema);
    const queryNames = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    const base = fill(path, liveId);
    const defects: (() => Omit<Case, "key" | "method">)[] = [
      () => ({ defect: "no credential", path: base, auth: null }),
      () => ({ defect: "another organization's credential", path: base, auth: g.auth }),
      () => ({
        defect: "a path id that names nothing",
        path: fill(path, { organization_id: a.id }),
        auth: a.auth,
      }),
      () => ({
        defect: "a path id that is not a UUID",
        path: fill(path, {
          organization_id: a.id,
          issuer_authorization_id: pick(["1", "abc", "x".repeat(300), "%00"]),
          pathway_id: pick(["1", "abc", "x".repeat(40)]),
          recommendation_id: pick(["-1", "abc"]),
        }),
        auth: a.auth,
      }),
    ].filter((_, i) => i < 2 || /\{(issuer_authorization|pathway|recommendation)_id\}/.test(path));
    // Only the query parameters the operation documents: another is ignored, as HTTP APIs do.
    const badQueries = [
      ...(queryNames.includes("per") ? ["per=0", "per=abc", `per=${int(101, 10_000)}`] : []),
      ...(queryNames.includes("page") ? ["page=0", "page=-1", "page=1.5"] : []),
      ...(queryNames.includes("sort") ? ["sort=no_such_key"] : []),
      ...(queryNames.includes("filter") ? ["filter=no_such_key::1", "filter=state::"] : []),
    ];
    if (badQueries.length > 0)
      defects.push(() => ({
        defect: "a bad page, per, sort or filter",
        path: `${base}?${pick(badQueries)}`,
        auth: a.auth,
      }));
    const body = validBody(key);
    if (schema?.properties && body) {
      const fields = Object.entries(schema.properties).map(([name, s]) => [name, resolve(s) ?? {}] as const);
      const jsonCase = (defect: string, value: unknown) => () => ({
        defect,
        path: base,
        auth: a.auth,
        body: JSON.stringify(value),
        contentType: "application/json",
      });
      defects.push(
        () => ({
          defect: "malformed JSON",
          path: base,
          auth: a.auth,
          body: JSON.stringify(body).slice(0, int(1, JSON.stringify(body).length - 1)),
          contentType: "application/json",
        }),
        () => jsonCase("a body that is no object", pick([[body], 7, "body", null]))(),
        () => jsonCase("an unknown field", { ...body, [`unknown_${int(0, 99)}`]: 1 })(),
        () => ({
          defect: "a text/plain body",
          path: base,
          auth: a.auth,
          body: JSON.stringify(body),
          contentType: "text/plain",
        }),
        () => {
          const [name, s] = pick(fields);
          return jsonCase(`${name} of the wrong type`, { ...body, [name]: wrongType(s) })();
        },
      );
      for (const name of schema.required ?? [])
        defects.push(() => {
          const { [name]: _gone, ...rest } = body;
          return jsonCase(`${name} missing`, rest)();
        });
      for (const [name, s] of fields) {
        if (s.maxLength !== undefined)
          defects.push(jsonCase(`${name} too long`, { ...body, [name]: "x".repeat(s.maxLength + int(1, 50)) }));
        if (s.format === "uuid")
          defects.push(() => jsonCase(`${name} not a UUID`, { ...body, [name]: pick(["1", "not-a-uuid", ""]) })());
        if ([s.type].flat().includes("string") && !s.enum && s.format === undefined)
          defects.push(jsonCase(`${name} with a NUL`, { ...body, [name]: "a\u0000b" }));
      }
    } else if (method !== "GET") {
      defects.push(() => ({
        defect: "malformed JSON",
        path: base,
        auth: a.auth,
        body: "{",
        contentType: "application/json",
      }));
    }
    for (let i = 0; i < PER_ROUTE; i++) cases.push({ key, method, ...pick(defects)() });
  }

  const problemsOf = (status: number, contentType: string, text: string): string[] => {
    const problems: string[] = [];
    if (status < 400 || status > 499) problems.push(`status ${status} is not a 4xx`);
    if (!/^application\/json\b/.test(contentType)) return [...problems, `content-type ${contentType}`];
    let parsed: { data?: Record<string, unknown>; metadata?: unknown };
    try {
      parsed = JSON.parse(text);
    } catch {
      return [...problems, "body is not JSON"];
    }
    const d = parsed.data;
    if (Object.keys(parsed).sort().join(",") !== "data,metadata") problems.push("body keys are not data,metadata");
    if (!d || typeof d.message !== "string" || d.message === "") problems.push("no message");
    if (!d || typeof d.code !== "string") problems.push("no code");
    if (!d || !Array.isArray(d.errors)) problems.push("errors is not an array");
    else if (status === 422 && d.errors.length === 0) problems.push("422 without field errors");
    return problems;
  };

  const failures: string[] = [];
  const counts = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++] as Case;
      const res = await fetch(`${laurel.origin}${c.path}`, {
        method: c.method,
        headers: {
          ...(c.auth ? { authorization: c.auth } : {}),
          ...(c.contentType ? { "content-type": c.contentType } : {}),
        },
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const text = await res.text();
      const problems = problemsOf(res.status, res.headers.get("content-type") ?? "", text);
      counts.set(c.key, (counts.get(c.key) ?? 0) + 1);
      if (problems.length > 0 && failures.length < 20)
        failures.push(
          `${c.method} ${c.path.slice(0, 120)} (${c.defect}): ${problems.join("; ")} — ${text.slice(0, 200)}`,
        );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const kinds = new Set(
    cases.map((c) => c.defect.replace(/^\S+ (?=of the wrong type|missing|too long|not a UUID|with a NUL)/, "")),
  );
  t.comment(`defects sent: ${[...kinds].sort().join("; ")}`);
  for (const kind of ["of the wrong type", "missing", "too long", "not a UUID", "with a NUL", "malformed JSON"])
    t.ok(kinds.has(kind), `some bodies were sent ${kind}`);
  t.same(failures, [], `${cases.length} bad requests: each a 4xx in the documented error body`);
  for (const { key } of operations) t.ok((counts.get(key) ?? 0) >= PER_ROUTE, `${key}: ${counts.get(key)} sent`);
  t.same(await snapshot(), before, "nothing created, changed or lost");
});
