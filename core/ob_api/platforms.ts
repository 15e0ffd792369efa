import {
  type AuthorizeCheck,
  authorizeError,
  type ConnectClient,
  checkClientAuthorizeRequest,
  type GrantTo,
} from "../connect/mod.ts";
import type { SecretBox } from "../credentials/mod.ts";
import { redirectUriProblem, uriHost } from "../credentials/mod.ts";
import { CoreError, fail, notFound, ok, type Result } from "../errors/mod.ts";
import { isoMillis } from "../shared/mod.ts";
import { OB_SCOPES, type ObScope, parseObScopeParam } from "./scopes.ts";

/** A platform registered through the Open Badges API's dynamic client registration (RFC 7591). */
export interface PlatformRecord {
  id: number;
  client_id: string;
  secret_digest: string;
  client_name: string;
  client_uri: string;
  logo_uri: string;
  tos_uri: string;
  policy_uri: string;
  software_id: string;
  software_version: string;
  /** Space-separated, as an application's. */
  redirect_uris: string;
  /** Space-separated Open Badges scopes it may ask an earner for. */
  scopes: string;
  /** Space-separated contact addresses (none hold spaces). */
  contacts: string;
  created_at: Date;
}

export interface PlatformStore {
  count(): Promise<number>;
  insert(platform: Omit<PlatformRecord, "id">): Promise<PlatformRecord>;
  findByClientId(clientId: string): Promise<PlatformRecord | null>;
  list(): Promise<PlatformRecord[]>;
  /** Removes the platform with its grants and tokens; false when there was none. */
  remove(clientId: string): Promise<boolean>;
}

/** How many platforms may register at most, unless the deployment says otherwise. */
export const DEFAULT_MAX_PLATFORMS = 1000;
export const MAX_REDIRECT_URIS = 10;
export const MAX_CONTACTS = 5;
const MAX_NAME = 200;
const MAX_URI = 2000;
const MAX_WORD = 200;

/** RFC 7591 §3.2.2's error names. */
export type RegistrationErrorCode = "invalid_redirect_uri" | "invalid_client_metadata";

export interface RegistrationError {
  error: RegistrationErrorCode;
  description: string;
}

export type RegistrationRequest = Omit<PlatformRecord, "id" | "client_id" | "secret_digest" | "created_at">;

const URI_FIELDS = ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const;

/**
 * Reads a registration request as the Open Badges API profiles RFC 7591: every listed field is
 * required, every address is https (or http on a loopback host, for development) on one host name,
 * only `client_secret_basic`, the authorization code and refresh token grants and the `code`
 * response type. A failure carries the RFC 7591 error the client is answered with.
 */
export const readRegistration = (body: unknown): Result<RegistrationRequest, RegistrationError> => {
  const meta = (description: string) => fail<RegistrationError>({ error: "invalid_client_metadata", description });
  if (typeof body !== "object" || body === null || Array.isArray(body)) return meta("The body must be a JSON object");
  const b = body as Record<string, unknown>;
  const text = (k: string, max: number): string | null => {
    const v = b[k];
    return typeof v === "string" && v.trim().length > 0 && v.length <= max ? v.trim() : null;
  };
  const name = text("client_name", MAX_NAME);
  if (name === null) return meta(`client_name is required, at most ${MAX_NAME} characters`);
  const uris: Record<(typeof URI_FIELDS)[number], string> = {
    client_uri: "",
    logo_uri: "",
    tos_uri: "",
    policy_uri: "",
  };
  for (const k of URI_FIELDS) {
    const v = text(k, MAX_URI);
    if (v === null) return meta(`${k} is required, at most ${MAX_URI} characters`);
    const problem = redirectUriProblem(v);
    if (problem) return meta(`${k} ${problem}`);
    uris[k] = v;
  }
  const softwareId = text("software_id", MAX_WORD);
  const softwareVersion = text("software_version", MAX_WORD);
  if (softwareId === null) return meta(`software_id is required, at most ${MAX_WORD} characters`);
  if (softwareVersion === null) return meta(`software_version is required, at most ${MAX_WORD} characters`);
  const redirects = b.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > MAX_REDIRECT_URIS) {
    return fail({
      error: "invalid_redirect_uri",
      description: `redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs`,
    });
  }
  for (const r of redirects) {
    const problem = typeof r === "string" && r.length <= MAX_URI ? redirectUriProblem(r) : "must be a URI";
    if (problem) return fail({ error: "invalid_redirect_uri", description: `Each redirect URI ${problem}` });
  }
  const hosts = new Set([...Object.values(uris), ...(redirects as string[])].map(uriHost));
  if (hosts.size !== 1) return meta("Every address must be on the same host name");
  const scope = b.scope;
  if (typeof scope !== "string" || scope.length > 1000) return meta("scope is required: the Open Badges scopes asked");
  const scopes = parseObScopeParam(scope);
  if (!scopes.ok) return meta(scopes.error);
  const auth = b.token_endpoint_auth_method;
  if (auth !== undefined && auth !== "client_secret_basic") {
    return meta("token_endpoint_auth_method must be client_secret_basic");
  }
  const allowedWords = (k: string, allowed: readonly string[]): boolean => {
    const v = b[k];
    if (v === undefined) return true;
    return Array.isArray(v) && v.length <= allowed.length && v.every((w) => allowed.includes(w as string));
  };
  if (!allowedWords("grant_types", ["authorization_code", "refresh_token"])) {
    return meta("grant_types may hold authorization_code and refresh_token only");
  }
  if (!allowedWords("response_types", ["code"])) return meta("response_types may hold code only");
  const contacts = b.contacts ?? [];
  if (
    !Array.isArray(contacts) ||
    contacts.length > MAX_CONTACTS ||
    !contacts.every((c) => typeof c === "string" && c.length > 0 && c.length <= MAX_WORD && !/\s/.test(c))
  ) {
    return meta(`contacts must be an array of at most ${MAX_CONTACTS} addresses`);
  }
  return ok({
    client_name: name,
    ...uris,
    software_id: softwareId,
    software_version: softwareVersion,
    redirect_uris: [...new Set(redirects as string[])].join(" "),
    scopes: scopes.value.join(" "),
    contacts: (contacts as string[]).join(" "),
  });
};

export interface RegisterDeps {
  store: PlatformStore;
  secrets: Pick<SecretBox, "newSecret" | "digest">;
  maxPlatforms: number;
}

/** The client's metadata as kept: what both the registration response and the operator's listing show. */
const clientMetadata = (p: PlatformRecord) => ({
  client_name: p.client_name,
  client_uri: p.client_uri,
  logo_uri: p.logo_uri,
  tos_uri: p.tos_uri,
  policy_uri: p.policy_uri,
  software_id: p.software_id,
  software_version: p.software_version,
  redirect_uris: p.redirect_uris.split(" "),
});

/** The registration response (RFC 7591 §3.2.1): the client's metadata as kept, with its credentials. */
export const registrationResponse = (p: PlatformRecord, secret: string) => ({
  client_id: p.client_id,
  client_secret: secret,
  client_id_issued_at: Math.floor(p.created_at.getTime() / 1000),
  client_secret_expires_at: 0,
  ...clientMetadata(p),
  token_endpoint_auth_method: "client_secret_basic",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  scope: p.scopes,
  ...(p.contacts ? { contacts: p.contacts.split(" ") } : {}),
});

/** Registers a platform; refused (429) once the deployment holds as many as it allows. */
export const registerPlatform = async (
  deps: RegisterDeps,
  ctx: { now: Date },
  request: RegistrationRequest,
): Promise<{ platform: PlatformRecord; secret: string }> => {
  if ((await deps.store.count()) >= deps.maxPlatforms) {
    throw new CoreError("rate_limited", "This server accepts no more platform registrations");
  }
  const secret = deps.secrets.newSecret();
  const platform = await deps.store.insert({
    ...request,
    client_id: deps.secrets.newSecret(),
    secret_digest: deps.secrets.digest(secret),
    created_at: ctx.now,
  });
  return { platform, secret };
};

/** Every scope a platform may be granted, for checks against what it registered. */
export const platformScopes = (p: Pick<PlatformRecord, "scopes">): ReadonlySet<string> =>
  new Set(p.scopes.split(" ").filter((s) => (OB_SCOPES as readonly string[]).includes(s)));

/** A platform as a client of the token endpoint. */
export const platformClient = (p: PlatformRecord): ConnectClient => ({
  key: { kind: "platform", id: p.id },
  uid: p.client_id,
  secret_digest: p.secret_digest,
});

/** What an earner's consent grants a platform. */
export const platformGrant = (p: Pick<PlatformRecord, "id">, privateBadges: boolean): GrantTo => ({
  client: { kind: "platform", id: p.id },
  known: OB_SCOPES,
  privateBadges,
});

/**
 * A platform's authorization request: read as an application's, with Open Badges scopes, and
 * only those it registered.
 */
export const checkPlatformAuthorizeRequest = (
  params: Record<string, unknown>,
  platform: PlatformRecord | null,
): AuthorizeCheck<PlatformRecord, ObScope> => {
  const checked = checkClientAuthorizeRequest(params, platform, parseObScopeParam);
  if (checked.kind !== "ok") return checked;
  const registered = platformScopes(checked.request.app);
  const beyond = checked.request.scopes.filter((s) => !registered.has(s));
  if (beyond.length > 0) {
    const { redirectUri, state } = checked.request;
    return authorizeError(redirectUri, state, "invalid_scope", `scope not registered: ${beyond.join(" ")}`);
  }
  return checked;
};

/** What the operator sees of a registered platform: everything but its secret's digest. */
export const platformListing = (p: PlatformRecord) => ({
  client_id: p.client_id,
  ...clientMetadata(p),
  scope: p.scopes,
  contacts: p.contacts ? p.contacts.split(" ") : [],
  created_at: isoMillis(p.created_at),
});

/**
 * The operator removes a platform: its registration, and with it every earner's grant to it and
 * every token of those grants, which stop working at once.
 */
export const removePlatform = async (store: Pick<PlatformStore, "remove">, clientId: string): Promise<void> => {
  if (!(await store.remove(clientId))) throw notFound("Platform");
};
