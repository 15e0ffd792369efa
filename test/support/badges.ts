import { basic, type TestLaurel, trpcMutation } from "./laurel.ts";

/** Helpers shared by the badge end-to-end tests (badges, templates, earners, hosted records). */

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the tests
  body: any;
}

export const apiClient =
  (laurel: TestLaurel) =>
  async (method: string, path: string, auth: string | null, body?: unknown): Promise<ApiResponse> => {
    const res = await fetch(path.startsWith("http") ? path : `${laurel.baseUrl}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };

export interface OrgFixture {
  id: string;
  auth: string;
  templates: string;
  badges: string;
}

export const organization = async (laurel: TestLaurel, name: string): Promise<OrgFixture> => {
  const { organization: org, authorization_token } = await laurel.createOrganization(name);
  return {
    id: org.id,
    auth: basic(authorization_token.token),
    templates: `/organizations/${org.id}/badge_templates`,
    badges: `/organizations/${org.id}/badges`,
  };
};

/** The fixture of an organization made over tRPC (`organizations.create`'s answer). */
export const basicOrg = (created: unknown): OrgFixture => {
  const { organization, authorization_token } = created as {
    organization: { id: string };
    authorization_token: { token: string };
  };
  return {
    id: organization.id,
    auth: basic(authorization_token.token),
    templates: `/organizations/${organization.id}/badge_templates`,
    badges: `/organizations/${organization.id}/badges`,
  };
};

/** Creates an active template (unless told otherwise) and returns its JSON. */
export const createTemplate = async (
  laurel: TestLaurel,
  org: OrgFixture,
  fields: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: a template's JSON
): Promise<any> => {
  const res = await apiClient(laurel)("POST", org.templates, org.auth, {
    name: "Rust",
    description: "Writes safe systems code",
    state: "active",
    ...fields,
  });
  if (res.status !== 201) throw new Error(`template creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
};

export const issueBody = (templateId: string, fields: Record<string, unknown> = {}) => ({
  badge_template_id: templateId,
  issued_at: "2024-03-01T10:00:00+01:00",
  issued_to_first_name: "Ada",
  issued_to_last_name: "Lovelace",
  recipient_email: "ada@example.org",
  ...fields,
});

export interface EventRow {
  id: string;
  organization_id: string;
  event_type: string;
  // biome-ignore lint/suspicious/noExplicitAny: event details of many shapes
  detail: any;
  /** The id of the transaction that wrote the row (PostgreSQL `xmin`). */
  xmin: string;
}

/** Rows of the events table (the outbox) of one organization, oldest first. */
export const eventRows = async (laurel: TestLaurel, organizationId: string, type?: string): Promise<EventRow[]> => {
  const rows = (await laurel.db.all(
    `select id, organization_id, event_type, detail, xmin::text as xmin from events where organization_id = ?${type ? " and event_type = ?" : ""} order by id`,
    type ? [organizationId, type] : [organizationId],
  )) as EventRow[];
  return rows.map((r) => ({ ...r, detail: typeof r.detail === "string" ? JSON.parse(r.detail) : r.detail }));
};

/** The transaction that last wrote a row of `table` (PostgreSQL `xmin`). */
export const rowXmin = async (laurel: TestLaurel, table: string, id: string): Promise<string | undefined> => {
  const rows = (await laurel.db.all(`select xmin::text as xmin from ${table} where id = ?`, [id])) as {
    xmin: string;
  }[];
  return rows[0]?.xmin;
};

/** Polls until `check` returns a value (background work such as notifications). */
export const eventually = async <T>(check: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
};

export const trpc = (laurel: TestLaurel, path: string, input: unknown) =>
  trpcMutation(laurel.adminOrigin, laurel.server.adminToken, path, input);

/** A tRPC mutation's failure: HTTP status and tRPC error code. */
export const trpcFailure = async (
  laurel: TestLaurel,
  path: string,
  input: unknown,
): Promise<{ status: number; code: string; message: string }> => {
  const res = await fetch(`${laurel.adminOrigin}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${laurel.server.adminToken}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { error?: { message: string; data: { code: string } } };
  return { status: res.status, code: body.error?.data.code ?? "", message: body.error?.message ?? "" };
};

/** The token endpoint's answer to `app` asking for a client_credentials token of `scope`. */
export const requestClientToken = (
  authUrl: string,
  app: { uid: string; secret: string },
  scope: string,
): Promise<Response> =>
  fetch(`${authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app.uid,
      client_secret: app.secret,
      scope,
    }),
  });

/** A Bearer authorization of `app`'s client_credentials token of `scope`, as the OAuth tests send it. */
export const clientBearer = async (authUrl: string, app: { uid: string; secret: string }, scope: string) =>
  `Bearer ${((await (await requestClientToken(authUrl, app, scope)).json()) as { access_token: string }).access_token}`;
