import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import t from "tap";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import { badgeScenarios } from "../support/openapi_badge_scenarios.ts";
import { connectScenarios } from "../support/openapi_connect_scenarios.ts";
import { employeeScenarios } from "../support/openapi_employee_scenarios.ts";
import { endorsementScenarios } from "../support/openapi_endorsement_scenarios.ts";
import { importScenarios } from "../support/openapi_import_scenarios.ts";
import { issuerAuthorizationScenarios } from "../support/openapi_issuer_scenarios.ts";
import { memberScenarios } from "../support/openapi_member_scenarios.ts";
import { pathwayScenarios } from "../support/openapi_pathway_scenarios.ts";
import { recommendationScenarios } from "../support/openapi_recommendation_scenarios.ts";

/**
 * The OpenAPI 3.1 document at /openapi.json names every route the server has, and
 * real answers (successes and errors) validate against the schemas it gives for their status.
 */

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

interface OpenApiResponse {
  description?: string;
  content?: Record<string, { schema?: object }>;
}
interface OpenApiOperation {
  responses?: Record<string, OpenApiResponse>;
  requestBody?: { content?: Record<string, { schema?: object }> };
  parameters?: Array<{ name: string; in: string; schema?: object }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, unknown>;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The earners' web pages (HTML, not API), at the root of PUBLIC_URL. */
const WEB_PAGES =
  /^\/(badges|organizations|pathways|users|sign_in|sign_out|sign_out_everywhere|wallet|account|assets|console|images)(\/|$)|^\*$|^\/\*?$/;

/** Routes that are not part of the public API and need not be documented. */
const undocumented = (path: string): boolean =>
  WEB_PAGES.test(path) ||
  // The authorization endpoint is the consent page: a browser's, described by discovery metadata.
  path === "/oauth/authorize" ||
  // The Open Badges API and its registration are 1EdTech's: described by the service description
  // document at <base>/ims/ob/v3p0/discovery and checked against 1EdTech's files (ob_api.test.ts).
  path.includes("/ims/ob/v3p0/") ||
  path === "/oauth/register" ||
  path.startsWith("/docs") ||
  path === "/openapi.json" ||
  path === "/healthz" ||
  path === "/readyz" ||
  path === "/metrics" ||
  path.startsWith("/trpc");

/**
 * Every route of the Fastify instance, from `printRoutes({ commonPrefix: false })`: a tree whose
 * lines are `<indent>├── <segment> (METHODS)` and whose children continue their parent's path.
 */
const routesOf = (tree: string): Array<{ path: string; methods: string[] }> => {
  const out: Array<{ path: string; methods: string[] }> = [];
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    const path = (depth ? (stack[depth - 1] as string) : "") + (m[2] as string);
    stack[depth] = path;
    if (m[3]) out.push({ path, methods: m[3].split(",").map((x) => x.trim()) });
  }
  return out;
};

/** `/a/:id/b` as OpenAPI writes it: `/a/{id}/b`. */
const openApiPath = (fastifyPath: string): string => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/** A JSON pointer into the document, as a URI fragment Ajv resolves. */
const pointer = (...segments: string[]): string =>
  `openapi.json#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`;

let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}
const call = async (
  method: string,
  url: string,
  opts: { auth?: string | null; body?: string; type?: string | null } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.authorization = opts.auth;
  if (opts.body !== undefined && opts.type !== null) headers["content-type"] = opts.type ?? "application/json";
  const res = await fetch(url, { method, headers, body: opts.body });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

t.test("/openapi.json is OpenAPI 3.1 and documents every route of the server", async (t) => {
  const res = await fetch(`${laurel.origin}/openapi.json`);
  t.equal(res.status, 200);
  t.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const doc = (await res.json()) as OpenApiDocument;
  t.match(doc.openapi, /^3\.1\.\d+$/, "OpenAPI 3.1.x");
  t.type(doc.paths, "object");

  const app = laurel.server.app;
  const routes = routesOf(app.printRoutes({ commonPrefix: false }));
  t.ok(routes.length > 0, "routes were read from the server");
  const public_ = routes.filter((r) => !undocumented(r.path));
  t.ok(
    public_.some((r) => r.path.includes(":")),
    "the routes include parameterised API routes",
  );
  let operations = 0;
  for (const route of public_) {
    for (const method of route.methods) {
      // Fastify adds HEAD for every GET by itself; it is not an operation of its own.
      if (method === "HEAD" && route.methods.includes("GET")) continue;
      t.ok(
        app.hasRoute({ method: method as "GET", url: route.path }),
        `the server has ${method} ${route.path} (route tree read correctly)`,
      );
      const documented = doc.paths[openApiPath(route.path)]?.[method.toLowerCase()];
      t.ok(documented, `${method} ${openApiPath(route.path)} is in the document`);
      operations++;
    }
  }
  t.ok(operations >= 9, `${operations} operations checked`);

  // And the other way round: the document promises nothing the server does not have.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item).filter((k) => HTTP_METHODS.includes(k))) {
      const fastifyPath = path.replace(/\{([^}]+)\}/g, ":$1");
      t.ok(
        app.hasRoute({ method: method.toUpperCase() as "GET", url: fastifyPath }),
        `documented ${method.toUpperCase()} ${path} exists`,
      );
    }
  }
});

t.test("GET /docs is an HTML reference page for the same document", async (t) => {
  const res = await fetch(`${laurel.origin}/docs`, { redirect: "manual" });
  t.equal(res.status, 200);
  t.match(res.headers.get("content-type") ?? "", /^text\/html/);
  t.match(await res.text(), /<html/i);
  const shown = await (await fetch(`${laurel.origin}/docs/json`)).json();
  const doc = await (await fetch(`${laurel.origin}/openapi.json`)).json();
  t.same(shown, doc, "the page shows the document served at /openapi.json");
});

t.test("real answers validate against the document, for every documented operation and status", async (t) => {
  const doc = (await (await fetch(`${laurel.origin}/openapi.json`)).json()) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc as object, "openapi.json");

  // Setup: organization A (full token), a read-only token, an application; organization B.
  const a = await laurel.createOrganization("OpenAPI Org");
  const b = await laurel.createOrganization("Other Org");
  const admin = basic(a.authorization_token.token);
  const adminB = basic(b.authorization_token.token);
  const api = laurel.baseUrl;
  const apps = `${api}/organizations/${a.organization.id}/oauth_applications`;
  const tokens = `${api}/organizations/${a.organization.id}/authorization_tokens`;
  const mk = async (url: string, auth: string, body: object) => {
    const r = await call("POST", url, { auth, body: JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`setup ${url}: ${r.status} ${r.text}`);
    return JSON.parse(r.text).data;
  };
  const reader = await mk(tokens, admin, { description: "reader", write_enabled: false, delete_enabled: false });
  const readerAuth = basic(reader.token);
  const app = await mk(apps, admin, { name: "documented", description: "exercised by the OpenAPI test" });
  const doomed = await mk(apps, admin, { name: "to delete" });
  const rotating = await mk(tokens, admin, { description: "to rotate" });
  const form = (p: Record<string, string>) => new URLSearchParams(p).toString();
  const issued = await call("POST", `${laurel.authUrl}/oauth/token`, {
    body: form({
      grant_type: "client_credentials",
      client_id: app.uid,
      client_secret: app.secret,
      scope: "authorization_tokens oauth_applications",
    }),
    type: "application/x-www-form-urlencoded",
  });
  const bearer = `Bearer ${JSON.parse(issued.text).access_token}`;
  const tooLarge = JSON.stringify({ name: "x", description: "y".repeat(1024 * 1024) });

  // ----- The check of one real answer against the document ------------------------------------

  /** Statuses validated per operation ("METHOD /path" as the document writes it). */
  const validated = new Map<string, Set<number>>();
  const check = (
    key: string,
    path: string,
    method: string,
    label: string,
    res: Answer,
    requestBody?: unknown,
  ): void => {
    const op = doc.paths[path]?.[method] as OpenApiOperation;
    t.ok(
      res.status < 500,
      `${label}: not a server error (${res.status})`,
      res.status < 500 ? {} : { body: res.text.slice(0, 300) },
    );
    const documented = op.responses?.[String(res.status)];
    t.ok(
      documented,
      `${label}: ${res.status} is a documented response`,
      documented ? {} : { documented: Object.keys(op.responses ?? {}), body: res.text.slice(0, 300) },
    );
    if (!documented) return;
    let valid = true;
    if (res.text === "") {
      valid = !documented.content;
      t.ok(valid, `${label}: the empty answer is documented without content`);
    } else {
      const mediaType = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
      const content = documented.content?.[mediaType];
      t.ok(
        content,
        `${label}: ${mediaType} is documented for ${res.status}`,
        content ? {} : { documented: Object.keys(documented.content ?? {}) },
      );
      if (!content) return;
      if (/(^application\/|\+)json$/.test(mediaType)) {
        t.ok(content.schema, `${label}: a schema is documented for ${res.status} ${mediaType}`);
        if (!content.schema) return;
        const validate = ajv.getSchema(
          pointer("paths", path, method, "responses", String(res.status), "content", mediaType, "schema"),
        );
        if (!validate) throw new Error(`cannot compile the schema of ${label}`);
        t.notOk(validate({ unexpected: true }), `${label}: the documented schema is not vacuous`);
        valid = validate(JSON.parse(res.text)) as boolean;
        t.ok(
          valid,
          `${label}: the answer validates against the document`,
          valid ? {} : { errors: validate.errors, body: res.text.slice(0, 400) },
        );
      }
    }
    if (requestBody !== undefined) {
      const requestSchema = op.requestBody?.content?.["application/json"]?.schema;
      t.ok(requestSchema, `${label}: the request body is documented`);
      if (requestSchema) {
        const accept = ajv.getSchema(
          pointer("paths", path, method, "requestBody", "content", "application/json", "schema"),
        );
        const accepted = accept ? accept(requestBody) : false;
        const ok = res.status < 300;
        t.equal(
          accepted,
          ok,
          `${label}: the documented request schema ${ok ? "accepts" : "refuses"} the body the server ${ok ? "accepted" : "refused"}`,
        );
      }
    }
    if (valid) validated.set(key, (validated.get(key) ?? new Set()).add(res.status));
  };

  // ----- Generic probes of every documented operation --------------------------------------------

  const operations: Array<{ key: string; path: string; method: string; op: OpenApiOperation }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (undocumented(path)) continue;
    for (const method of Object.keys(item).filter((k) => HTTP_METHODS.includes(k))) {
      operations.push({ key: `${method.toUpperCase()} ${path}`, path, method, op: item[method] as OpenApiOperation });
    }
  }
  /** The operation's URL with parameters that exist (the organization) or do not (everything else). */
  const urlFor = (path: string, op: OpenApiOperation, org = a.organization.id): string => {
    const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      if (name === "organization_id") return org;
      const schema = (op.parameters?.find((p) => p.in === "path" && p.name === name)?.schema ?? {}) as {
        type?: string;
        format?: string;
      };
      if (schema.type === "integer") return "2147483647";
      if (schema.format === "uuid") return "00000000-0000-4000-8000-000000000000";
      return "nonexistent";
    });
    return `${laurel.origin}${url}`;
  };
  for (const { key, path, method, op } of operations) {
    const url = urlFor(path, op);
    const secured = (op as { security?: unknown[] }).security?.length;
    const hasBody = Boolean(op.requestBody);
    if (secured) {
      check(key, path, method, `${key} — probe without credentials`, await call(method.toUpperCase(), url));
      const other = await call(method.toUpperCase(), urlFor(path, op), {
        auth: adminB,
        ...(hasBody ? { body: "{}" } : {}),
      });
      if (path.includes("{organization_id}")) {
        t.equal(other.status, 403, `${key} — probe with another organization's token: 403`);
        check(key, path, method, `${key} — probe with another organization's token`, other);
      }
      // GET and DELETE of unknown ids, lists; writes get a body in a type the API does not take.
      const own = await call(method.toUpperCase(), url, {
        auth: admin,
        ...(hasBody ? { body: "{}", type: "text/plain" } : {}),
      });
      check(key, path, method, `${key} — probe with the organization's token`, own);
    } else if (method === "get") {
      check(key, path, method, `${key} — probe`, await call("GET", url));
    }
  }

  // ----- Scenarios: real successes and errors, operation by operation ----------------------------

  interface Scenario {
    name: string;
    status: number;
    run(): Promise<Answer>;
    /** A request body that must (2xx) or must not (422) satisfy the documented request schema. */
    requestBody?: unknown;
  }
  const json = (v: unknown) => JSON.stringify(v);
  const tokenEndpoint =
    (body: string, type = "application/x-www-form-urlencoded", auth?: string) =>
    () =>
      call("POST", `${laurel.authUrl}/oauth/token`, { body, type, auth });
  const createBody = { name: "created", description: "by a scenario" };
  const updateBody = { description: "updated" };
  const newTokenBody = { description: "scenario", delete_enabled: false };

  /** Keyed as the document keys operations. An operation with no 2xx from the probes needs one here. */
  // The badge operations (badge templates, badges, hosted records) have their scenarios beside them.
  const badgeOperations = await badgeScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const employeeOperations = await employeeScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const connectOperations = await connectScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const memberOperations = await memberScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const importOperations = await importScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const endorsementOperations = await endorsementScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const recommendationOperations = await recommendationScenarios({
    laurel,
    call,
    organizationId: a.organization.id,
    admin,
  });
  const pathwayOperations = await pathwayScenarios({ laurel, call, organizationId: a.organization.id, admin });
  const issuerOperations = await issuerAuthorizationScenarios({
    laurel,
    call,
    organizationId: a.organization.id,
    admin,
  });
  const SCENARIOS: Record<string, Scenario[]> = {
    ...badgeOperations,
    ...connectOperations,
    ...employeeOperations,
    ...memberOperations,
    ...importOperations,
    ...endorsementOperations,
    ...recommendationOperations,
    ...pathwayOperations,
    ...issuerOperations,
    "GET /v1/organizations/{organization_id}/events/{event_id}": [
      {
        // The badge scenarios' setup recorded events; fetch the newest by its id.
        name: "found",
        status: 200,
        run: async () => {
          const events = `${laurel.baseUrl}/organizations/${a.organization.id}/events`;
          const list = await call("GET", events, { auth: admin });
          const id = (JSON.parse(list.text) as { data: Array<{ id: string }> }).data[0]?.id;
          if (!id) throw new Error(`no event recorded: ${list.status} ${list.text.slice(0, 200)}`);
          return call("GET", `${events}/${id}`, { auth: admin });
        },
      },
    ],
    "POST /oauth/token": [
      {
        name: "issued",
        status: 200,
        run: tokenEndpoint(
          form({ grant_type: "client_credentials", client_id: app.uid, client_secret: app.secret, scope: "events" }),
        ),
      },
      {
        name: "JSON body, Basic",
        status: 200,
        run: tokenEndpoint(
          json({ grant_type: "client_credentials", scope: "events" }),
          "application/json",
          `Basic ${Buffer.from(`${app.uid}:${app.secret}`).toString("base64")}`,
        ),
      },
      {
        name: "unsupported grant",
        status: 400,
        run: tokenEndpoint(
          form({ grant_type: "password", client_id: app.uid, client_secret: app.secret, scope: "events" }),
        ),
      },
      {
        name: "unknown scope",
        status: 400,
        run: tokenEndpoint(
          form({ grant_type: "client_credentials", client_id: app.uid, client_secret: app.secret, scope: "admin" }),
        ),
      },
      {
        name: "wrong secret",
        status: 401,
        run: tokenEndpoint(
          form({ grant_type: "client_credentials", client_id: app.uid, client_secret: "nope", scope: "events" }),
        ),
      },
    ],
    "PUT /v1/organizations/{organization_id}": [
      {
        name: "profile and webhook changed",
        status: 200,
        requestBody: { description: "changed", webhook_url: "https://hooks.example.org/laurel" },
        run: () =>
          call("PUT", `${laurel.baseUrl}/organizations/${a.organization.id}`, {
            auth: admin,
            body: json({ description: "changed", webhook_url: "https://hooks.example.org/laurel" }),
          }),
      },
      {
        name: "a webhook on a private network",
        status: 422,
        run: () =>
          call("PUT", `${laurel.baseUrl}/organizations/${a.organization.id}`, {
            auth: admin,
            body: json({ webhook_url: "https://10.0.0.1/hook" }),
          }),
      },
      {
        name: "unknown field",
        status: 422,
        requestBody: { colour: "red" },
        run: () =>
          call("PUT", `${laurel.baseUrl}/organizations/${a.organization.id}`, {
            auth: admin,
            body: json({ colour: "red" }),
          }),
      },
    ],
    "GET /.well-known/jwks.json": [
      { name: "keys", status: 200, run: () => call("GET", `${laurel.authUrl}/.well-known/jwks.json`) },
    ],
    "GET /v1/organizations/{organization_id}/oauth_applications": [
      { name: "list", status: 200, run: () => call("GET", apps, { auth: admin }) },
      { name: "list with Bearer", status: 200, run: () => call("GET", `${apps}?page=1`, { auth: bearer }) },
      { name: "page 0", status: 400, run: () => call("GET", `${apps}?page=0`, { auth: admin }) },
      { name: "no credentials", status: 401, run: () => call("GET", apps) },
      { name: "another organization's token", status: 403, run: () => call("GET", apps, { auth: adminB }) },
    ],
    "POST /v1/organizations/{organization_id}/oauth_applications": [
      {
        name: "created",
        status: 201,
        requestBody: createBody,
        run: () => call("POST", apps, { auth: admin, body: json(createBody) }),
      },
      { name: "malformed JSON", status: 400, run: () => call("POST", apps, { auth: admin, body: '{"name":' }) },
      {
        name: "bad token",
        status: 401,
        run: () => call("POST", apps, { auth: basic("nope"), body: json(createBody) }),
      },
      {
        name: "read-only token",
        status: 403,
        run: () => call("POST", apps, { auth: readerAuth, body: json(createBody) }),
      },
      { name: "over 1 MiB", status: 413, run: () => call("POST", apps, { auth: admin, body: tooLarge }) },
      {
        name: "text/plain",
        status: 415,
        run: () => call("POST", apps, { auth: admin, body: json(createBody), type: "text/plain" }),
      },
      {
        name: "name missing",
        status: 422,
        requestBody: { description: "x" },
        run: () => call("POST", apps, { auth: admin, body: json({ description: "x" }) }),
      },
      {
        name: "unknown field",
        status: 422,
        requestBody: { name: "x", admin: true },
        run: () => call("POST", apps, { auth: admin, body: json({ name: "x", admin: true }) }),
      },
    ],
    "GET /v1/organizations/{organization_id}/oauth_applications/{oauth_application_id}": [
      { name: "found", status: 200, run: () => call("GET", `${apps}/${app.id}`, { auth: admin }) },
      { name: "id not an integer", status: 400, run: () => call("GET", `${apps}/abc`, { auth: admin }) },
      { name: "no credentials", status: 401, run: () => call("GET", `${apps}/${app.id}`) },
      {
        name: "another organization's token",
        status: 403,
        run: () => call("GET", `${apps}/${app.id}`, { auth: adminB }),
      },
      { name: "unknown id", status: 404, run: () => call("GET", `${apps}/2147483647`, { auth: admin }) },
    ],
    "PUT /v1/organizations/{organization_id}/oauth_applications/{oauth_application_id}": [
      {
        name: "updated",
        status: 200,
        requestBody: updateBody,
        run: () => call("PUT", `${apps}/${app.id}`, { auth: admin, body: json(updateBody) }),
      },
      {
        name: "malformed JSON",
        status: 400,
        run: () => call("PUT", `${apps}/${app.id}`, { auth: admin, body: "{,}" }),
      },
      {
        name: "Bearer garbage",
        status: 401,
        run: () => call("PUT", `${apps}/${app.id}`, { auth: "Bearer x.y.z", body: json(updateBody) }),
      },
      {
        name: "read-only token",
        status: 403,
        run: () => call("PUT", `${apps}/${app.id}`, { auth: readerAuth, body: json(updateBody) }),
      },
      {
        name: "unknown id",
        status: 404,
        run: () => call("PUT", `${apps}/2147483647`, { auth: admin, body: json(updateBody) }),
      },
      {
        name: "application/xml",
        status: 415,
        run: () => call("PUT", `${apps}/${app.id}`, { auth: admin, body: "<name>x</name>", type: "application/xml" }),
      },
      {
        name: "blank name",
        status: 422,
        requestBody: { name: "   " },
        run: () => call("PUT", `${apps}/${app.id}`, { auth: admin, body: json({ name: "   " }) }),
      },
    ],
    "DELETE /v1/organizations/{organization_id}/oauth_applications/{oauth_application_id}": [
      { name: "id not an integer", status: 400, run: () => call("DELETE", `${apps}/-1`, { auth: admin }) },
      { name: "no credentials", status: 401, run: () => call("DELETE", `${apps}/${doomed.id}`) },
      { name: "read-only token", status: 403, run: () => call("DELETE", `${apps}/${doomed.id}`, { auth: readerAuth }) },
      { name: "deleted", status: 204, run: () => call("DELETE", `${apps}/${doomed.id}`, { auth: admin }) },
      { name: "already deleted", status: 404, run: () => call("DELETE", `${apps}/${doomed.id}`, { auth: admin }) },
    ],
    "GET /v1/organizations/{organization_id}/authorization_tokens": [
      { name: "list", status: 200, run: () => call("GET", tokens, { auth: admin }) },
      { name: "truncated list", status: 200, run: () => call("GET", tokens, { auth: readerAuth }) },
      { name: "page too large", status: 400, run: () => call("GET", `${tokens}?page=99999999999`, { auth: admin }) },
      { name: "no credentials", status: 401, run: () => call("GET", tokens) },
      { name: "another organization's token", status: 403, run: () => call("GET", tokens, { auth: adminB }) },
    ],
    "POST /v1/organizations/{organization_id}/authorization_tokens": [
      {
        name: "created",
        status: 201,
        requestBody: newTokenBody,
        run: () => call("POST", tokens, { auth: admin, body: json(newTokenBody) }),
      },
      { name: "created without a body", status: 201, run: () => call("POST", tokens, { auth: admin }) },
      { name: "malformed JSON", status: 400, run: () => call("POST", tokens, { auth: admin, body: "{" }) },
      { name: "no credentials", status: 401, run: () => call("POST", tokens, { body: json(newTokenBody) }) },
      {
        name: "above the caller's permissions",
        status: 403,
        run: () => call("POST", tokens, { auth: readerAuth, body: json({ delete_enabled: true }) }),
      },
      {
        name: "over 1 MiB",
        status: 413,
        run: () => call("POST", tokens, { auth: admin, body: json({ description: "z".repeat(1024 * 1024) }) }),
      },
      {
        name: "multipart",
        status: 415,
        run: () =>
          call("POST", tokens, { auth: admin, body: "--b\r\n\r\nx\r\n--b--", type: "multipart/form-data; boundary=b" }),
      },
      {
        name: "flag not a boolean",
        status: 422,
        requestBody: { read_enabled: "yes" },
        run: () => call("POST", tokens, { auth: admin, body: json({ read_enabled: "yes" }) }),
      },
    ],
    "POST /v1/organizations/{organization_id}/authorization_tokens/rotate": [
      {
        name: "malformed JSON",
        status: 400,
        run: () => call("POST", `${tokens}/rotate`, { auth: basic(rotating.token), body: "[" }),
      },
      {
        name: "unknown token",
        status: 401,
        run: () => call("POST", `${tokens}/rotate`, { auth: basic("nope"), body: "{}" }),
      },
      {
        name: "with an OAuth token",
        status: 403,
        run: () => call("POST", `${tokens}/rotate`, { auth: bearer, body: "{}" }),
      },
      {
        name: "text/plain",
        status: 415,
        run: () => call("POST", `${tokens}/rotate`, { auth: basic(rotating.token), body: "{}", type: "text/plain" }),
      },
      {
        name: "unknown field",
        status: 422,
        requestBody: { name: "x" },
        run: () => call("POST", `${tokens}/rotate`, { auth: basic(rotating.token), body: json({ name: "x" }) }),
      },
      {
        name: "rotated",
        status: 201,
        requestBody: { description: "rotated" },
        run: () =>
          call("POST", `${tokens}/rotate`, { auth: basic(rotating.token), body: json({ description: "rotated" }) }),
      },
    ],
  };

  const seen = new Set<number>();
  for (const { key, path, method } of operations) {
    for (const s of SCENARIOS[key] ?? []) {
      const res = await s.run();
      seen.add(res.status);
      const label = `${key} — ${s.name}`;
      t.equal(res.status, s.status, `${label}: status`, { body: res.text.slice(0, 300) });
      check(key, path, method, label, res, s.requestBody);
    }
  }
  for (const key of Object.keys(SCENARIOS))
    t.ok(
      operations.some((o) => o.key === key),
      `${key} (exercised here) is in the document`,
    );

  // Every documented operation answered at least one success and one error that validate.
  for (const { key, op } of operations) {
    const statuses = [...(validated.get(key) ?? [])];
    // Only an operation that takes something (credentials, parameters, a body) can be asked wrongly.
    const canFail = Boolean(
      (op as { security?: unknown[] }).security?.length || op.parameters?.length || op.requestBody,
    );
    t.ok(
      statuses.some((s) => s < 300),
      `${key}: a real success answer validated against the document`,
      statuses.some((s) => s < 300)
        ? {}
        : { validated: statuses, hint: "add a success scenario to SCENARIOS in test/e2e/openapi.test.ts" },
    );
    if (canFail)
      t.ok(
        statuses.some((s) => s >= 400),
        `${key}: a real error answer validated against the document`,
        { validated: statuses },
      );
  }
  for (const status of [200, 201, 204, 400, 401, 403, 404, 413, 415, 422])
    t.ok(seen.has(status), `a real ${status} was validated`);
});
