import type { FastifyInstance, FastifyRequest } from "fastify";
import { byCredential } from "../../core/audit/mod.ts";
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
import type { ImportStore } from "../../core/imports/mod.ts";
import type { IssuerAuthorizationStore } from "../../core/issuer_authorizations/mod.ts";
import type { MemberDeps } from "../../core/members/mod.ts";
import type { PlatformStore } from "../../core/ob_api/mod.ts";
import type { Urls } from "../../core/organizations/mod.ts";
import type { PathwayStore } from "../../core/pathways/mod.ts";
import type { RecommendationDeps } from "../../core/recommendations/mod.ts";
import type { Cidr, WebhookCrypto, WebhookSettingsStore } from "../../core/webhooks/mod.ts";
import type { ImageUploads } from "../obi/mod.ts";
import type { UploadSlots } from "../uploads/mod.ts";
import type { Authenticator } from "./authenticator.ts";
import type { BadgeRestDeps } from "./badge_deps.ts";
import type { RateLimitDeps, RateLimits } from "./rate_limits.ts";
import type { EmployeeRestDeps } from "./routes/employees.ts";
import type { EndorsementRestDeps } from "./routes/endorsements.ts";
import type { ObApiDeps } from "./routes/ob_api.ts";

export interface HealthAnswer {
  status: "ok" | "unavailable";
  checks: Record<string, boolean>;
}

/** Everything the REST adapter needs, passed in by the app that wires it. */
export interface RestDeps {
  /** `{base_url}`, such as `http://localhost:3000/v1`. */
  baseUrl: string;
  /** `{auth_url}`, such as `http://localhost:3000`. */
  authUrl: string;
  /** The web face (`PUBLIC_URL`): the organization's public page. */
  publicUrl: string;
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
  /** Badge templates, badges and the hosted OBI records. */
  badges: BadgeRestDeps;
  /** Where template images sent to the API are stored (served by the web face at `/images/<name>`). */
  images: ImageUploads;
  /** The events table, read by the events API. */
  events: EventStore;
  /** Employee records and their invitations. */
  employees: EmployeeRestDeps;
  /** Memberships and invitations of the organization's people. */
  members: MemberDeps;
  /** The organization's webhook settings, which `PUT /organizations/<id>` changes. */
  webhooks: {
    settings: WebhookSettingsStore;
    crypto: Pick<WebhookCrypto, "newKey">;
    /** `WEBHOOK_ALLOWED_NETWORKS`, for a webhook_url written as an IP address. */
    allowedNetworks: readonly Cidr[];
    /** After a change of settings, before the answer: workers drop the settings they cached. */
    onSettingsChanged?: (organizationId: string) => Promise<void>;
  };
  /** After the organization's profile changed: cached issuer records are dropped. */
  onOrganizationChanged?: (organizationId: string) => void;
  /** CSV imports of badges and employee records, worked by the worker processes. */
  imports: ImportStore;
  /** The process's upload slots, shared with the console's; absent: a set of the API's own. */
  uploads?: UploadSlots;
  /** Earners' grants to applications (authorization code flow, the user API); absent: not offered. */
  connect?: ConnectRestDeps;
  /** Endorsements between organizations; absent, neither their routes nor their credentials are served. */
  endorsements?: EndorsementRestDeps;
  /** Recommendations of templates to people; absent, the routes are not served. */
  recommendations?: RecommendationDeps;
  /** Pathways and their earners' progress; absent, the routes are not served. */
  pathways?: PathwayStore;
  /** Authorized issuers (organizations issuing others' templates); absent, their routes are not served. */
  issuerAuthorizations?: IssuerAuthorizationStore;
  /** The Open Badges 3.0 API (needs `connect`); absent, it is not served. */
  obApi?: ObApiDeps;
  /** `/healthz`: 200 when `status` is "ok", 503 otherwise; the whole answer is the body. */
  health(): Promise<HealthAnswer>;
  /** `/readyz`, the same way; `health` when absent. */
  ready?(): Promise<HealthAnswer>;
  /** True for an error meaning a dependency cannot be reached right now: answered 503 with Retry-After. */
  unavailable?(err: unknown): boolean;
  metrics?(): Promise<string> | string;
  /** Request limits (none: unlimited) and the store failed authentications are counted in. */
  rateLimits?: RateLimitDeps;
  /** Set by the app from `rateLimits`: the limits' hooks its routes apply. */
  limits?: RateLimits;
  /** Further plugins on the public listener (the earners' web pages). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>;
}

export const contextOf = (deps: Pick<RestDeps, "clock" | "newId">): Context => ({
  now: deps.clock(),
  newId: deps.newId,
});

/** The context of an authenticated request: its credential and client address are who the audit log names. */
export const requestContext = (deps: Pick<RestDeps, "clock" | "newId">, request: FastifyRequest): Context => ({
  ...contextOf(deps),
  ...(request.auth ? { by: byCredential(request.auth.credential, request.ip) } : {}),
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
  /** Platforms registered through the Open Badges API; absent, no platform can sign in. */
  platforms?: Pick<PlatformStore, "findByClientId">;
}
