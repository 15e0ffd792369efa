import t from "tap";
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  actionForMethod,
  authorizationTokenExpiry,
  authorize,
  basicTokenValue,
  type Credential,
  type Flags,
  newTokenFlags,
  parseScopeParam,
  parseTokenRequest,
  rotationCaller,
  SCOPES,
  type Scope,
  seesOnlyReadOnlyTokens,
  tokenUsable,
} from "../../core/auth/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

/** The CoreError a check throws, or null when it passes. */
const refusal = (run: () => void): CoreError | null => {
  const result = resultOf(run);
  return result.ok ? null : result.error;
};

const ORG = "0b1e6c43-53f2-4b1a-9f1d-6f0a9d0a2b11";
const OTHER = "7c0d5a55-2b1e-4f39-8a3d-2f2d7f5b9e22";
const oauth = (scopes: Scope[], organizationId = ORG): Credential => ({
  kind: "oauth",
  organizationId,
  applicationId: 1,
  clientId: "client",
  jti: "j",
  scopes,
  ceiling: { read_enabled: true, write_enabled: true, delete_enabled: true },
});
const token = (flags: Partial<Flags>, organizationId = ORG): Credential => ({
  kind: "authorization_token",
  organizationId,
  tokenId: "t",
  read_enabled: false,
  write_enabled: false,
  delete_enabled: false,
  ...flags,
});

t.test("scope x route family: an OAuth token reaches exactly the families of its scopes", async (t) => {
  for (const held of SCOPES) {
    for (const family of SCOPES) {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        const refused = refusal(() =>
          authorize(oauth([held]), { organizationId: ORG, family, action: actionForMethod(method) }),
        );
        t.equal(refused === null, held === family, `${held} on ${family} ${method}`);
        if (refused) t.equal(refused.code, "forbidden");
      }
    }
  }
});

t.test("flags x method: GET needs read, POST/PUT write, DELETE delete", async (t) => {
  const table: Array<[string, keyof Flags]> = [
    ["GET", "read_enabled"],
    ["HEAD", "read_enabled"],
    ["POST", "write_enabled"],
    ["PUT", "write_enabled"],
    ["PATCH", "write_enabled"],
    ["DELETE", "delete_enabled"],
  ];
  const flagNames: Array<keyof Flags> = ["read_enabled", "write_enabled", "delete_enabled"];
  for (const [method, needed] of table) {
    for (const held of flagNames) {
      const refused = refusal(() =>
        authorize(token({ [held]: true }), {
          organizationId: ORG,
          family: "badge_templates",
          action: actionForMethod(method),
        }),
      );
      t.equal(refused === null, held === needed, `${method} with only ${held}`);
    }
  }
});

t.test("another organization's credential is refused whatever it holds", async (t) => {
  for (const cred of [
    oauth([...SCOPES], OTHER),
    token({ read_enabled: true, write_enabled: true, delete_enabled: true }, OTHER),
  ]) {
    const refused = refusal(() =>
      authorize(cred, { organizationId: ORG, family: "oauth_applications", action: "read" }),
    );
    t.equal(refused?.code, "forbidden");
    t.match(refused?.message, /another organization/);
  }
});

t.test("ceiling x request: a new token never exceeds its creator", async (t) => {
  const combos: Flags[] = [];
  for (let bits = 0; bits < 8; bits++) {
    combos.push({ read_enabled: !!(bits & 1), write_enabled: !!(bits & 2), delete_enabled: !!(bits & 4) });
  }
  for (const creator of combos) {
    for (const asked of combos) {
      const result = caught(() => newTokenFlags(token(creator), asked));
      const exceeds = (Object.keys(asked) as Array<keyof Flags>).some((k) => asked[k] && !creator[k]);
      if (exceeds) {
        t.ok(isCoreError(result), `${JSON.stringify(creator)} asking ${JSON.stringify(asked)}: 403`);
        if (isCoreError(result)) t.equal(result.code, "forbidden");
      } else {
        t.same(result, asked, `${JSON.stringify(creator)} asking ${JSON.stringify(asked)}: granted as asked`);
      }
    }
  }
});

t.test("flags left out are inherited from the creator", async (t) => {
  t.same(
    caught(() => newTokenFlags(token({ read_enabled: true, write_enabled: true }), {})),
    {
      read_enabled: true,
      write_enabled: true,
      delete_enabled: false,
    },
  );
  t.same(
    caught(() => newTokenFlags(token({ read_enabled: true, write_enabled: true }), { write_enabled: false })),
    {
      read_enabled: true,
      write_enabled: false,
      delete_enabled: false,
    },
  );
  t.same(
    caught(() => newTokenFlags(oauth(["authorization_tokens"]), {})),
    {
      read_enabled: true,
      write_enabled: true,
      delete_enabled: true,
    },
  );
  t.ok(
    isCoreError(caught(() => newTokenFlags(oauth(["events"]), { read_enabled: true }))),
    "an OAuth token without the scope holds no flags",
  );
});

t.test("list truncation: only a credential with write and delete sees every token", async (t) => {
  t.equal(seesOnlyReadOnlyTokens(token({ read_enabled: true, write_enabled: true, delete_enabled: true })), false);
  t.equal(seesOnlyReadOnlyTokens(token({ read_enabled: true, write_enabled: true })), true);
  t.equal(seesOnlyReadOnlyTokens(token({ read_enabled: true, delete_enabled: true })), true);
  t.equal(seesOnlyReadOnlyTokens(token({ read_enabled: true })), true);
  t.equal(seesOnlyReadOnlyTokens(oauth(["authorization_tokens"])), false);
});

t.test("lifetimes with a fixed clock", async (t) => {
  const created = new Date("2026-01-31T12:00:00.000Z");
  t.equal(authorizationTokenExpiry(created).toISOString(), "2026-07-30T12:00:00.000Z", "180 days");
  t.equal(ACCESS_TOKEN_LIFETIME_SECONDS, 7200);
  const expires = authorizationTokenExpiry(created);
  const table: Array<[string, Date, Date | null, boolean]> = [
    ["just created", created, null, true],
    ["one ms before expiry", new Date(expires.getTime() - 1), null, true],
    ["at expiry", expires, null, false],
    ["after expiry", new Date(expires.getTime() + 1), null, false],
    ["revoked", created, created, false],
  ];
  for (const [name, now, revoked, usable] of table) {
    t.equal(tokenUsable({ expires_at: expires, revoked_at: revoked }, now), usable, name);
  }
});

t.test("rotation needs an authorization token", async (t) => {
  t.same(
    caught(() => rotationCaller(token({ read_enabled: true }))),
    { tokenId: "t" },
  );
  const refused = caught(() => rotationCaller(oauth(["authorization_tokens"])));
  t.ok(isCoreError(refused));
});

t.test("scope parameter", async (t) => {
  const table: Array<[string | undefined, Scope[] | null]> = [
    ["events", ["events"]],
    ["events  issued_badges", ["events", "issued_badges"]],
    ["issued_badges events events", ["events", "issued_badges"]],
    ["", null],
    [undefined, null],
    ["   ", null],
    ["events admin", null],
    ["EVENTS", null],
  ];
  for (const [raw, expected] of table) {
    const parsed = parseScopeParam(raw);
    t.same(parsed.ok ? parsed.value : null, expected, JSON.stringify(raw));
  }
});

/** The RFC 6749 name a request reader throws, or null when it reads the request. */
const oauthRefusal = (read: () => unknown): string | null => {
  try {
    read();
    return null;
  } catch (err) {
    if (!isCoreError(err)) throw err;
    return err.oauth ?? err.code;
  }
};

t.test("token request rules (RFC 6749 errors)", async (t) => {
  const creds = { clientId: "id", clientSecret: "secret" };
  const table: Array<[string, Record<string, unknown>, typeof creds | "malformed" | null, string | null]> = [
    [
      "body credentials",
      { grant_type: "client_credentials", client_id: "id", client_secret: "s", scope: "events" },
      null,
      null,
    ],
    ["basic credentials", { grant_type: "client_credentials", scope: "events" }, creds, null],
    ["basic plus same client_id", { grant_type: "client_credentials", client_id: "id", scope: "events" }, creds, null],
    [
      "both",
      { grant_type: "client_credentials", client_id: "id", client_secret: "s", scope: "events" },
      creds,
      "invalid_request",
    ],
    ["no grant", { scope: "events" }, creds, "invalid_request"],
    ["wrong grant", { grant_type: "password", scope: "events" }, creds, "unsupported_grant_type"],
    ["no credentials", { grant_type: "client_credentials", scope: "events" }, null, "invalid_client"],
    ["malformed basic", { grant_type: "client_credentials", scope: "events" }, "malformed", "invalid_client"],
    ["no scope", { grant_type: "client_credentials" }, creds, "invalid_scope"],
    ["unknown scope", { grant_type: "client_credentials", scope: "root" }, creds, "invalid_scope"],
    ["array param", { grant_type: ["client_credentials", "x"], scope: "events" }, creds, "invalid_request"],
    ["number param", { grant_type: "client_credentials", scope: 5 }, creds, "invalid_request"],
  ];
  for (const [name, params, basic, error] of table) {
    t.equal(
      oauthRefusal(() => parseTokenRequest(params, basic)),
      error,
      name,
    );
  }
});

t.test("an HTTP Basic credential: the token alone, with a colon or with a trailing bar", async (t) => {
  const table: Array<[string, string | null]> = [
    ["tok", "tok"],
    ["tok:", "tok"],
    ["tok|", "tok"],
    ["tok:secret", null],
    ["tok||", null],
    ["tok|:", null],
    ["tok:|", null],
    [":tok", null],
    ["|tok", null],
    ["to|k", null],
    [":", null],
    ["|", null],
    ["", null],
  ];
  for (const [decoded, value] of table) t.equal(basicTokenValue(decoded), value, JSON.stringify(decoded));
});
