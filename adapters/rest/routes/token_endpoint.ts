import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { clientCredentials, isUserGrant, parseTokenRequest, parseUserGrantRequest } from "../../../core/auth/mod.ts";
import {
  applicationClient,
  type ConnectClient,
  exchangeUserGrant,
  revokeUserToken,
} from "../../../core/connect/mod.ts";
import { AccessToken, issueAccessToken, type OAuthApplicationRecord } from "../../../core/credentials/mod.ts";
import { CoreError, isCoreError, oauthError } from "../../../core/errors/mod.ts";
import { platformClient } from "../../../core/ob_api/mod.ts";
import { isUnstorableText } from "../../../core/shared/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { isRefusedTextError } from "../nul_guard.ts";
import { oauthAnswer } from "../oauth_errors.ts";
import { NO_LIMITS } from "../rate_limits.ts";

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

/** For the document only: the handler reads the parameters itself to answer RFC 6749 errors. */
const TokenRequestBody = Type.Object({
  grant_type: Type.Union([
    Type.Literal("client_credentials"),
    Type.Literal("authorization_code"),
    Type.Literal("refresh_token"),
  ]),
  scope: Type.Optional(Type.String({ description: "client_credentials: space-separated organization scopes" })),
  code: Type.Optional(Type.String({ description: "authorization_code: the code from the authorization endpoint" })),
  redirect_uri: Type.Optional(Type.String({ description: "authorization_code: as in the authorization request" })),
  code_verifier: Type.Optional(Type.String({ description: "authorization_code: the PKCE verifier" })),
  refresh_token: Type.Optional(Type.String({ description: "refresh_token: the latest refresh token" })),
  client_id: Type.Optional(Type.String({ description: "When not sent with HTTP Basic" })),
  client_secret: Type.Optional(Type.String({ description: "When not sent with HTTP Basic" })),
});

/** Earners' grants also carry a refresh token. */
const TokenResponse = Type.Object({
  ...AccessToken.properties,
  refresh_token: Type.Optional(Type.String({ description: "authorization_code and refresh_token grants" })),
});

/**
 * The server's public keys: the access tokens' (`kid` its thumbprint) and the Open Badges 3.0
 * credentials' (RSA and Ed25519, `kid` the URL each is served at, as the credentials' headers name them).
 */
const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.String(),
      crv: Type.Optional(Type.String()),
      x: Type.Optional(Type.String()),
      n: Type.Optional(Type.String()),
      e: Type.Optional(Type.String()),
      kid: Type.String(),
      alg: Type.String(),
      use: Type.String(),
    }),
  ),
});
const JWK_SET = "application/jwk-set+json";

/** The whole request body, in any encoding: a token request is a few hundred bytes. */
export const TOKEN_BODY_LIMIT = 16 * 1024;

const parseBasic = (header: string | undefined): { clientId: string; clientSecret: string } | "malformed" | null => {
  if (!header) return null;
  if (!/^basic /i.test(header)) return "malformed";
  // base64 of the longest client id and secret, percent-encoded, with a colon: refused unread beyond.
  if (header.length > 2048) return "malformed";
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return "malformed";
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    return "malformed";
  }
};

/**
 * `POST {auth_url}/oauth/token` (docs/interface.md, Authentication) and the JWKS. Errors follow RFC 6749 §5.2,
 * not the API's error envelope.
 */
export const tokenEndpointRoutes = (deps: RestDeps, prefix: string) => async (app: FastifyInstance) => {
  await app.register(formbody, { bodyLimit: TOKEN_BODY_LIMIT });
  const limits = deps.limits ?? NO_LIMITS;

  /**
   * Every error as a core error: the grants' own refusals (each names its RFC 6749 error) and the
   * rate limits' as they are; text PostgreSQL cannot hold, refused by the edge's hook or by the
   * database, as an invalid request; a body Fastify refused by its status.
   */
  const asTokenError = (err: FastifyError): CoreError => {
    if (isCoreError(err) && (err.oauth !== undefined || err.code === "rate_limited")) return err;
    if (isCoreError(err) || isRefusedTextError(err)) {
      return oauthError("invalid_request", "Parameters must be valid text without NUL");
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      const code = deps.unavailable?.(err) ? "unavailable" : "internal";
      return new CoreError(code, err.message, { cause: err });
    }
    if (status === 413) {
      return new CoreError("payload_too_large", `The request body is larger than ${TOKEN_BODY_LIMIT} bytes`);
    }
    if (status === 415) {
      return new CoreError("unsupported_media_type", "Send application/x-www-form-urlencoded or application/json");
    }
    return oauthError("invalid_request", "Malformed request body");
  };

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const error = asTokenError(err);
    if (error.code === "unavailable") {
      request.log.warn({ err: { message: err.message, code: err.code } }, "dependency unavailable");
    }
    if (error.code === "internal") request.log.error({ err }, "token endpoint failure");
    const answer = oauthAnswer(error);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });

  // Credentials sent in the body skip the app-wide check of failing addresses, so every grant
  // checks the address here, with the client id it names; the address (behind a balancer, read
  // from X-Forwarded-For) only while a failure window is open.
  const refuseIfFailing = (request: FastifyRequest, reply: FastifyReply, clientId: string): void => {
    if (limits.failuresSeen()) limits.refuseIfFailingClient(reply, `ip:${request.ip}`, `client:${clientId}`);
  };
  /**
   * A wrong secret counts against the client id and the address (the address through the 401
   * every route counts); an unknown, used or expired code or refresh token is a 400 and counts
   * against the address alone: its client authenticated.
   */
  const countFailure = async (request: FastifyRequest, clientId: string, err: unknown): Promise<void> => {
    if (!isCoreError(err)) return;
    if (err.oauth === "invalid_client") await limits.failed(`client:${clientId}`);
    else if (err.oauth === "invalid_grant") await limits.failed(`ip:${request.ip}`);
  };

  /** The application a grant names, as the authenticator knows it (cached). */
  const findByUid = (uid: string): Promise<OAuthApplicationRecord | null> => deps.authenticator.application(uid);
  /** What every grant reads and signs with; a use of an application is recorded at `now`. */
  const grantBasics = (now: Date) => ({
    apps: { findByUid },
    secrets: deps.secrets,
    signer: deps.signer,
    issuer: deps.authUrl,
    recordUse: (app: OAuthApplicationRecord, granted: boolean) =>
      deps.authenticator.recordUse({ kind: "oauth", id: app.id }, granted, now),
  });
  /** The token a grant gives, never cached; a refusal counts against the client or the address. */
  const sendGrant = async (request: FastifyRequest, reply: FastifyReply, clientId: string, grant: Promise<unknown>) => {
    const token = await grant.catch(async (err: unknown) => {
      await countFailure(request, clientId, err);
      throw err;
    });
    return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(token);
  };

  /** An organization's application, else a platform registered through the Open Badges API. */
  const findClient = async (uid: string): Promise<ConnectClient | null> => {
    const app = await findByUid(uid);
    if (app) return applicationClient(app);
    const platform = uid.length <= 200 ? await deps.connect?.platforms?.findByClientId(uid) : null;
    return platform ? platformClient(platform) : null;
  };

  const userGrant = async (request: FastifyRequest, reply: FastifyReply, params: Record<string, unknown>) => {
    const connect = deps.connect as NonNullable<RestDeps["connect"]>;
    const parsed = parseUserGrantRequest(params, parseBasic(request.headers.authorization));
    refuseIfFailing(request, reply, parsed.clientId);
    const ctx = contextOf(deps);
    const grantDeps = {
      ...grantBasics(ctx.now),
      clients: { findByUid: findClient },
      // Only applications keep a record of their last use.
      recordUse: (client: ConnectClient, granted: boolean) => {
        if (client.key.kind === "application") {
          deps.authenticator.recordUse({ kind: "oauth", id: client.key.id }, granted, ctx.now);
        }
      },
      store: connect.store,
      s256: connect.s256,
    };
    return sendGrant(request, reply, parsed.clientId, exchangeUserGrant(grantDeps, ctx, parsed));
  };

  app.post(`${prefix}/oauth/token`, {
    // Validation errors are attached, not thrown: the handler answers them as RFC 6749 errors.
    attachValidation: true,
    bodyLimit: TOKEN_BODY_LIMIT,
    onRequest: limits.token,
    schema: {
      tags: ["OAuth"],
      summary: "Client credentials, authorization code (PKCE) and refresh token grants: 7200-second EdDSA JWTs",
      consumes: ["application/x-www-form-urlencoded", "application/json"],
      body: TokenRequestBody,
      security: [{ client_basic: [] }, {}],
      response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const params = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      if (deps.connect && isUserGrant(params)) return userGrant(request, reply, params);
      const parsed = parseTokenRequest(params, parseBasic(request.headers.authorization));
      if (isUnstorableText(parsed.clientId) || isUnstorableText(parsed.clientSecret)) {
        throw oauthError("invalid_request", "Client credentials must be valid text without NUL");
      }
      refuseIfFailing(request, reply, parsed.clientId);
      const ctx = contextOf(deps);
      return sendGrant(request, reply, parsed.clientId, issueAccessToken(grantBasics(ctx.now), ctx, parsed));
    },
  });

  // Token revocation (RFC 7009) for earners' grants: the token's whole family ends at once.
  if (deps.connect) {
    const connect = deps.connect;
    app.post(`${prefix}/oauth/revoke`, {
      attachValidation: true,
      bodyLimit: TOKEN_BODY_LIMIT,
      onRequest: limits.token,
      schema: {
        tags: ["OAuth"],
        summary: "Revokes an earner-granted refresh or access token and its family (RFC 7009)",
        consumes: ["application/x-www-form-urlencoded"],
        security: [{ client_basic: [] }, {}],
        response: { 200: Type.Null(), 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
      handler: async (request, reply) => {
        const body = request.body;
        const params =
          body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
        const token = typeof params.token === "string" ? params.token : "";
        if (token.length === 0 || token.length > 4096) throw oauthError("invalid_request", "token is required");
        const client = clientCredentials(params, parseBasic(request.headers.authorization));
        refuseIfFailing(request, reply, client.clientId);
        const family = async (jwt: string): Promise<string | null> => {
          const claims = await connect.verifyAccessToken(jwt);
          const fresh = claims && typeof claims.exp === "number" && claims.exp * 1000 > deps.clock().getTime();
          return fresh && typeof claims.sid === "string" ? claims.sid : null;
        };
        const revoking = revokeUserToken(
          { store: connect.store, clients: { findByUid: findClient }, secrets: deps.secrets },
          { now: deps.clock() },
          { clientId: client.clientId, clientSecret: client.clientSecret, token },
          family,
        );
        await revoking.catch(async (err: unknown) => {
          await countFailure(request, client.clientId, err);
          throw err;
        });
        return reply.header("cache-control", "no-store").code(200).send();
      },
    });
  }

  const jwks = {
    schema: {
      tags: ["OAuth"],
      summary: "Public keys of access tokens and of Open Badges 3.0 credentials (JWKS)",
      response: { 200: Jwks },
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) =>
      reply
        .header("cache-control", "public, max-age=300")
        .header("vary", "Accept")
        .type(request.headers.accept?.includes(JWK_SET) ? JWK_SET : "application/json")
        .send(deps.jwks),
  };
  app.get(`${prefix}/.well-known/jwks.json`, jwks);
  // OB 3.0 verifiers look for the key set at the root of the issuer id's host, whatever AUTH_URL's path.
  if (prefix !== "") app.get("/.well-known/jwks.json", { ...jwks, schema: { ...jwks.schema, hide: true } });
};
