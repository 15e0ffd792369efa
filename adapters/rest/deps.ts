import type { FastifyInstance } from "fastify";
import type { ConnectStore } from "../../core/connect/mod.ts";
import type {
  AccessTokenClaims,
  AccessTokenSigner,
  AuthorizationTokenStore,
  Context,
  OAuthApplicationStore,
  OrganizationStore,
  RevocationBroadcast,
  SecretBox,
} from "../../core/credentials/mod.ts";
import type { EarnerStore } from "../../core/earners/mod.ts";
import type { EventStore } from "../../core/events/mod.ts";
import type { Urls } from "../../core/organizations/mod.ts";
import type { Authenticator } from "./authenticator.ts";
import type { BadgeRestDeps } from "./badge_deps.ts";
import type { EmployeeRestDeps } from "./routes/employees.ts";

/** Everything the REST adapter needs, passed in by the app that wires it. */
export interface RestDeps {
  /** `{base_url}`, such as `http://localhost:3000/v1`. */
  baseUrl: string;
  /** `{auth_url}`, such as `http://localhost:3000`. */
  authUrl: string;
  clock: () => Date;
  newId: () => string;
  organizations: OrganizationStore;
  apps: OAuthApplicationStore;
  tokens: AuthorizationTokenStore;
  secrets: SecretBox;
  revocations: RevocationBroadcast;
  authenticator: Authenticator;
  signer: AccessTokenSigner;
  jwks: { keys: object[] };
  /** Badge templates, badges and the hosted OBI records (issue 3). */
  badges: BadgeRestDeps;
  /** The events table, read by the events API (issue 4). */
  events: EventStore;
  /** Employee records and their invitations. */
  employees: EmployeeRestDeps;
  /** Earners' grants to applications (authorization code flow, the user API); absent: not offered. */
  connect?: ConnectRestDeps;
  health(): Promise<Record<string, boolean>>;
  metrics?(): Promise<string> | string;
  /** Further route plugins (badges, events, tRPC...), registered at the root. */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>;
}

export const contextOf = (deps: Pick<RestDeps, "clock" | "newId">): Context => ({
  now: deps.clock(),
  newId: deps.newId,
});

export const urlsOf = (deps: Pick<RestDeps, "baseUrl">): Urls => ({ api: deps.baseUrl });

export interface ConnectRestDeps {
  store: ConnectStore;
  /** BASE64URL(SHA-256(verifier)) for PKCE. */
  s256(verifier: string): string;
  verifyAccessToken(token: string): Promise<Partial<AccessTokenClaims> | null>;
  /** The earner's account and badges, for the user API. */
  earners: Pick<EarnerStore, "getAccount" | "userBadges">;
  /** `PUBLIC_URL`: profile and badge pages. */
  publicUrl: string;
}
