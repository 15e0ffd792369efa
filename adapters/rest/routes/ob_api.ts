import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type GrantCaller, grantCaller } from "../../../core/connect/mod.ts";
import { updateName } from "../../../core/earners/mod.ts";
import { CoreError, forbidden, isCoreError, unauthenticated, validationFailed } from "../../../core/errors/mod.ts";
import {
  credentialPage,
  earnerProfile,
  OB_SCOPE,
  OB_SCOPE_DESCRIPTIONS,
  type ObScope,
  type PlatformStore,
  pageRelations,
  parseObScopeParam,
  platformClient,
  profileNameOf,
  readCredentialQuery,
  readRegistration,
  registerPlatform,
  registrationResponse,
  upsertCredential,
} from "../../../core/ob_api/mod.ts";
import { OB_V3_CONTEXT, VC_V2_CONTEXT } from "../../../core/obi/mod.ts";
import type { ExternalBadgeContext, ExternalBadgeDeps, ExternalBadgeOwner } from "../../../core/workforce/mod.ts";
import { badgeRecords, endorsementCredentials } from "../../obi/mod.ts";
import type { ConnectRestDeps, RestDeps } from "../deps.ts";
import { imsxAnswer, imsxBody } from "../imsx_errors.ts";
import type { SharedCounter } from "../rate_limits.ts";

/** What the Open Badges API needs beyond the user API's parts. */
export interface ObApiDeps {
  platforms: PlatformStore & { subjectOf(userId: string): Promise<string | null> };
  /** What the service description document names: the deployment's name, image, terms and policy. */
  site: { name: string; imageUrl: string | null; privacyUrl: string; termsUrl: string };
  maxPlatforms: number;
  /** Registrations per source address and hour, counted across processes; no counter: unlimited. */
  registrations: { perHour: number; counter?: SharedCounter };
  /** The wallet's external badges, where delivered credentials go; absent: upsertCredential is refused. */
  externalBadges?: ExternalBadgeDeps;
  externalContext(): ExternalBadgeContext;
  /** The earner's account (name, confirmed addresses) and name change. */
  earners: ConnectRestDeps["earners"] & Parameters<typeof updateName>[0]["store"];
}

/** A registration request is a few hundred bytes; ten redirect URIs of 2000 characters fit. */
export const REGISTRATION_BODY_LIMIT = 32 * 1024;
/** A delivered credential: the wallet keeps at most 12,000 characters of one. */
const CREDENTIAL_BODY_LIMIT = 64 * 1024;
const HOUR_MS = 3_600_000;
const FASTIFY_STATUS: Partial<Record<number, "payload_too_large" | "unsupported_media_type">> = {
  413: "payload_too_large",
  415: "unsupported_media_type",
};
const API_PATH = "/ims/ob/v3p0";
const JSON_TYPE = "application/json";

/**
 * The Open Badges 3.0 API (1EdTech's): the service description document, dynamic client
 * registration, and the earner's credentials and profile for the platforms they authorized.
 * Errors of the resource endpoints are `Imsx_StatusInfo` bodies; registration's are RFC 7591's.
 */
export const obApiRoutes =
  (deps: RestDeps, connect: ConnectRestDeps, ob: ObApiDeps, prefixes: { api: string; auth: string }) =>
  async (plugin: FastifyInstance) => {
    // The handlers read their parts themselves, to answer the specification's error bodies.
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const base = `${deps.baseUrl}${API_PATH}`;
    const registrationUrl = `${deps.authUrl}/oauth/register`;
    const records = badgeRecords({
      urls: {
        obiBase: `${deps.baseUrl}/obi/v2`,
        v3Base: `${deps.baseUrl}/obi/v3`,
        publicBase: deps.badges.issuing.urls.publicBase,
      },
      credentials: deps.badges.credentials,
      sha256Hex: deps.badges.sha256Hex,
    });
    const endorsed = deps.endorsements
      ? endorsementCredentials({
          store: deps.endorsements.store,
          credentials: deps.badges.credentials,
          urls: { obiBase: `${deps.baseUrl}/obi/v2`, v3Base: `${deps.baseUrl}/obi/v3` },
        })
      : null;

    // upsertCredential takes a compact JWS as text/plain, or a JSON-LD credential as it is sent;
    // only this context reads these types, and the JSON is read (and refused) where the rule is.
    app.addContentTypeParser(
      ["text/plain", "application/ld+json"],
      { parseAs: "string", bodyLimit: CREDENTIAL_BODY_LIMIT },
      (_r, body, done) => done(null, body),
    );
    app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
      const core = isCoreError(err)
        ? err
        : (err.statusCode ?? 500) < 500
          ? new CoreError(FASTIFY_STATUS[err.statusCode ?? 400] ?? "bad_request", err.message)
          : new CoreError(deps.unavailable?.(err) ? "unavailable" : "internal", err.message, { cause: err });
      if (core.code === "internal") request.log.error({ err }, "Open Badges API failure");
      if (request.url.startsWith(`${prefixes.auth}/oauth/register`)) {
        // RFC 7591 names no error for these: the status says what happened.
        const status: Record<string, number> = {
          payload_too_large: 413,
          rate_limited: 429,
          unavailable: 503,
          internal: 500,
        };
        const answer = { error: "invalid_client_metadata", error_description: imsxAnswer(core).body.imsx_description };
        return reply.code(status[core.code] ?? 400).send(answer);
      }
      const answer = imsxAnswer(core);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });

    const discovery = {
      openapi: "3.0.1",
      info: {
        title: ob.site.name,
        description: "Open Badges 3.0 API: an earner's credentials and profile, for platforms the earner authorizes",
        version: "3.0",
        termsOfService: ob.site.termsUrl,
        "x-imssf-privacyPolicyUrl": ob.site.privacyUrl,
        ...(ob.site.imageUrl ? { "x-imssf-image": ob.site.imageUrl } : {}),
      },
      servers: [{ url: base, description: "This server's Open Badges API" }],
      tags: [{ name: "OpenBadgeCredentials" }, { name: "Discovery" }],
      paths: {
        "/credentials": {
          get: {
            operationId: "getCredentials",
            tags: ["OpenBadgeCredentials"],
            security: [{ OAuth2ACG: [OB_SCOPE.credentialRead] }],
            responses: { 200: { description: "GetOpenBadgeCredentialsResponse" } },
          },
          post: {
            operationId: "upsertCredential",
            tags: ["OpenBadgeCredentials"],
            security: [{ OAuth2ACG: [OB_SCOPE.credentialUpsert] }],
            responses: { 200: { description: "Updated" }, 201: { description: "Created" } },
          },
        },
        "/profile": {
          get: {
            operationId: "getProfile",
            tags: ["OpenBadgeCredentials"],
            security: [{ OAuth2ACG: [OB_SCOPE.profileRead] }],
            responses: { 200: { description: "Profile" } },
          },
          put: {
            operationId: "putProfile",
            tags: ["OpenBadgeCredentials"],
            security: [{ OAuth2ACG: [OB_SCOPE.profileUpdate] }],
            responses: { 200: { description: "Profile" } },
          },
        },
        "/discovery": {
          get: {
            operationId: "getServiceDescription",
            tags: ["Discovery"],
            responses: { 200: { description: "ServiceDescriptionDocument" } },
          },
        },
      },
      components: {
        securitySchemes: {
          OAuth2ACG: {
            type: "oauth2",
            description: "OAuth 2.0 Authorization Code Grant authorization",
            "x-imssf-name": ob.site.name,
            "x-imssf-privacyPolicyUrl": ob.site.privacyUrl,
            "x-imssf-registrationUrl": registrationUrl,
            "x-imssf-termsOfServiceUrl": ob.site.termsUrl,
            flows: {
              authorizationCode: {
                authorizationUrl: `${deps.authUrl}/oauth/authorize`,
                tokenUrl: `${deps.authUrl}/oauth/token`,
                refreshUrl: `${deps.authUrl}/oauth/token`,
                scopes: OB_SCOPE_DESCRIPTIONS,
              },
            },
          },
        },
      },
    };

    app.get(`${prefixes.api}${API_PATH}/discovery`, { schema: { hide: true } }, async (_request, reply) =>
      reply.header("cache-control", "public, max-age=300").type(JSON_TYPE).send(discovery),
    );

    app.post(
      `${prefixes.auth}/oauth/register`,
      { bodyLimit: REGISTRATION_BODY_LIMIT, schema: { hide: true } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        if (!request.headers["content-type"]?.toLowerCase().startsWith(JSON_TYPE)) {
          return reply.code(400).send({ error: "invalid_client_metadata", error_description: "Send application/json" });
        }
        const read = readRegistration(request.body);
        if (!read.ok)
          return reply.code(400).send({ error: read.error.error, error_description: read.error.description });
        const { counter, perHour } = ob.registrations;
        if (counter) {
          const hit = await counter.hit(`ob-registration:${request.ip}`, HOUR_MS);
          if (hit.hits > perHour) {
            reply.header("retry-after", String(Math.max(1, Math.ceil(hit.ttlMs / 1000))));
            throw new CoreError("rate_limited", `At most ${perHour} registrations an hour from one address`);
          }
        }
        const secrets = { newSecret: deps.secrets.newSecret, digest: deps.secrets.digest };
        const { platform, secret } = await registerPlatform(
          { store: ob.platforms, secrets, maxPlatforms: ob.maxPlatforms },
          { now: deps.clock() },
          read.value,
        );
        return reply.code(201).send(registrationResponse(platform, secret));
      },
    );

    /** The earner and grant behind a platform's token holding `scope`; an answered refusal otherwise. */
    const clients = {
      findByUid: async (uid: string) => {
        const platform = uid.length <= 200 ? await ob.platforms.findByClientId(uid) : null;
        return platform ? platformClient(platform) : null;
      },
    };
    const callerOf = async (request: FastifyRequest, scope: ObScope): Promise<GrantCaller<ObScope>> => {
      const header = request.headers.authorization ?? "";
      const jwt = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : "";
      const claims = jwt.length > 0 && jwt.length <= 4096 ? await connect.verifyAccessToken(jwt) : null;
      const fresh = claims && typeof claims.exp === "number" && claims.exp * 1000 > deps.clock().getTime();
      const caller = fresh ? await grantCaller({ store: connect.store, clients }, claims, parseObScopeParam) : null;
      if (!caller) throw unauthenticated("An access token an earner granted this platform is required");
      if (!caller.scopes.includes(scope)) throw forbidden(`This token lacks the scope ${scope}`);
      return caller;
    };
    const accountOf = async (userId: string) => {
      const account = await connect.earners.getAccount(userId);
      if (!account || account.closed_at !== null) throw unauthenticated("The account no longer exists");
      return account;
    };

    app.get<{ Querystring: Record<string, unknown> }>(
      `${prefixes.api}${API_PATH}/credentials`,
      { schema: { hide: true } },
      async (request, reply) => {
        const caller = await callerOf(request, OB_SCOPE.credentialRead);
        const query = readCredentialQuery(request.query, (iso) => {
          const d = new Date(iso);
          return Number.isNaN(d.getTime()) ? null : d;
        });
        if (!query.ok) {
          return reply.code(400).send(imsxBody("invalid_query_parameter", query.error));
        }
        const views = await connect.earners.userBadges(caller.userId);
        const { page, total } = credentialPage(views, caller.grant, query.value);
        const link = (offset: number) => {
          const url = new URL(`${base}/credentials`);
          url.searchParams.set("limit", String(query.value.limit));
          url.searchParams.set("offset", String(offset));
          if (query.value.since) url.searchParams.set("since", query.value.since.toISOString());
          return url.toString();
        };
        const links = pageRelations(query.value, total).map((r) => `<${link(r.offset)}>; rel="${r.rel}"`);
        // Each template's accepted endorsements, read and signed once for the page.
        const endorsementsOf = new Map(
          endorsed
            ? await Promise.all(
                [...new Set(page.map((v) => v.template.id))].map(
                  async (id) => [id, await endorsed.of("badge_template", id)] as const,
                ),
              )
            : [],
        );
        const jws = await Promise.all(
          page.map((v) => records.credential({ ...v, endorsementJwt: endorsementsOf.get(v.template.id) ?? [] })),
        );
        return reply
          .header("cache-control", "no-store")
          .header("x-total-count", String(total))
          .header("link", links.join(", "))
          .type(JSON_TYPE)
          .send(jws.length > 0 ? { compactJwsString: jws } : {});
      },
    );

    app.post(
      `${prefixes.api}${API_PATH}/credentials`,
      { bodyLimit: CREDENTIAL_BODY_LIMIT, schema: { hide: true } },
      async (request, reply) => {
        const caller = await callerOf(request, OB_SCOPE.credentialUpsert);
        if (!ob.externalBadges)
          throw new CoreError("forbidden", "This server does not keep credentials from other issuers");
        const type = request.headers["content-type"]?.toLowerCase() ?? "";
        const asJson = type.startsWith(JSON_TYPE) || type.startsWith("application/ld+json");
        if (!asJson && !type.startsWith("text/plain")) {
          throw new CoreError(
            "unsupported_media_type",
            "Send a compact JWS as text/plain, or a credential with a Data Integrity proof as application/json",
          );
        }
        const body: unknown = request.body;
        // Text (a JWS, or JSON-LD read as text) is passed as sent; parsed JSON as its JSON again.
        const credential =
          typeof body === "string" && !type.startsWith(JSON_TYPE) ? body.trim() : JSON.stringify(body ?? null);
        const account = await accountOf(caller.userId);
        const owner: ExternalBadgeOwner = {
          userId: account.user.id,
          confirmedEmails: account.user.emails.filter((e) => e.confirmed).map((e) => e.email),
        };
        const { created } = await upsertCredential(ob.externalBadges, ob.externalContext(), owner, credential);
        return reply
          .code(created ? 201 : 200)
          .type(asJson ? JSON_TYPE : "text/plain")
          .send(credential);
      },
    );

    const profileOf = async (userId: string) => {
      const account = await accountOf(userId);
      const subject = await ob.platforms.subjectOf(userId);
      if (subject === null) throw unauthenticated("The account no longer exists");
      return earnerProfile(subject, account.user, [VC_V2_CONTEXT, OB_V3_CONTEXT]);
    };

    app.get(`${prefixes.api}${API_PATH}/profile`, { schema: { hide: true } }, async (request, reply) => {
      const caller = await callerOf(request, OB_SCOPE.profileRead);
      return reply
        .header("cache-control", "no-store")
        .type(JSON_TYPE)
        .send(await profileOf(caller.userId));
    });

    app.put(`${prefixes.api}${API_PATH}/profile`, { schema: { hide: true } }, async (request, reply) => {
      const caller = await callerOf(request, OB_SCOPE.profileUpdate);
      const account = await accountOf(caller.userId);
      if (request.body === undefined) throw validationFailed("A Profile is required");
      await updateName({ store: ob.earners }, deps.clock(), account, profileNameOf(request.body));
      return reply
        .header("cache-control", "no-store")
        .type(JSON_TYPE)
        .send(await profileOf(caller.userId));
    });
  };
