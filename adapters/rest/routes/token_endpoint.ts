import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import {
  isUserGrant,
  type OAuthError,
  oauthErrorStatus,
  parseTokenRequest,
  parseUserGrantRequest,
} from "../../../core/auth/mod.ts";
import { exchangeUserGrant } from "../../../core/connect/mod.ts";
import { AccessToken, issueAccessToken } from "../../../core/credentials/mod.ts";
import { isCoreError } from "../../../core/errors/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { errorBody, RETRY_AFTER_SECONDS } from "../errors.ts";
import { isRefusedTextError, isUnstorableText } from "../nul_guard.ts";
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

const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.String(),
      crv: Type.String(),
      x: Type.String(),
      kid: Type.String(),
      alg: Type.String(),
      use: Type.String(),
    }),
  ),
});

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

  const fail = (reply: import("fastify").FastifyReply, error: OAuthError) => {
    reply.code(oauthErrorStatus(error.error)).header("cache-control", "no-store").header("pragma", "no-cache");
    if (error.error === "invalid_client") reply.header("www-authenticate", 'Basic realm="Laurel"');
    return reply.send(error);
  };

  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (isCoreError(err) && err.code === "rate_limited") {
      return reply.code(429).header("cache-control", "no-store").send(errorBody(err.code, err.message));
    }
    // The edge's refusal of unstorable text (a hook shared by every route), and the database's.
    if (isCoreError(err) || isRefusedTextError(err)) {
      return fail(reply, { error: "invalid_request", error_description: "Parameters must be valid text without NUL" });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      if (deps.unavailable?.(err))
        reply.log.warn({ err: { message: err.message, code: err.code } }, "dependency unavailable");
      else reply.log.error({ err }, "token endpoint failure");
      return reply
        .code(503)
        .header("cache-control", "no-store")
        .header("retry-after", String(RETRY_AFTER_SECONDS))
        .send({ error: "temporarily_unavailable", error_description: "Try again later" });
    }
    if (status === 413) {
      return reply
        .code(413)
        .header("cache-control", "no-store")
        .send({
          error: "invalid_request",
          error_description: `The request body is larger than ${TOKEN_BODY_LIMIT} bytes`,
        });
    }
    const description =
      status === 415 ? "Send application/x-www-form-urlencoded or application/json" : "Malformed request body";
    return fail(reply, { error: "invalid_request", error_description: description });
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
  const countFailure = async (request: FastifyRequest, clientId: string, error: OAuthError): Promise<void> => {
    if (error.error === "invalid_client") await limits.failed(`client:${clientId}`);
    else if (error.error === "invalid_grant") await limits.failed(`ip:${request.ip}`);
  };

  const userGrant = async (
    request: import("fastify").FastifyRequest,
    reply: import("fastify").FastifyReply,
    params: Record<string, unknown>,
  ) => {
    const connect = deps.connect as NonNullable<RestDeps["connect"]>;
    const parsed = parseUserGrantRequest(params, parseBasic(request.headers.authorization));
    if (!parsed.ok) return fail(reply, parsed.error);
    refuseIfFailing(request, reply, parsed.request.clientId);
    const ctx = contextOf(deps);
    const result = await exchangeUserGrant(
      {
        store: connect.store,
        apps: { findByUid: (uid) => deps.authenticator.application(uid) },
        secrets: deps.secrets,
        signer: deps.signer,
        issuer: deps.authUrl,
        s256: connect.s256,
      },
      ctx,
      parsed.request,
    );
    if (result.app) deps.authenticator.recordUse({ kind: "oauth", id: result.app.id }, result.ok, ctx.now);
    if (!result.ok) {
      await countFailure(request, parsed.request.clientId, result.error);
      return fail(reply, result.error);
    }
    return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(result.token);
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
      if (!parsed.ok) return fail(reply, parsed.error);
      if (isUnstorableText(parsed.request.clientId) || isUnstorableText(parsed.request.clientSecret)) {
        return fail(reply, {
          error: "invalid_request",
          error_description: "Client credentials must be valid text without NUL",
        });
      }
      refuseIfFailing(request, reply, parsed.request.clientId);
      const ctx = contextOf(deps);
      const result = await issueAccessToken(
        {
          apps: { findByUid: (uid) => deps.authenticator.application(uid) },
          secrets: deps.secrets,
          signer: deps.signer,
          issuer: deps.authUrl,
        },
        ctx,
        parsed.request,
      );
      if (result.app) deps.authenticator.recordUse({ kind: "oauth", id: result.app.id }, result.ok, ctx.now);
      if (!result.ok) {
        await countFailure(request, parsed.request.clientId, result.error);
        return fail(reply, result.error);
      }
      return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(result.token);
    },
  });

  app.get(`${prefix}/.well-known/jwks.json`, {
    schema: { tags: ["OAuth"], summary: "Public keys of access tokens (JWKS)", response: { 200: Jwks } },
    handler: async (_request, reply) => reply.header("cache-control", "public, max-age=300").send(deps.jwks),
  });
};
