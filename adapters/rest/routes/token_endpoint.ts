import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance } from "fastify";
import { Type } from "typebox";
import { type OAuthError, oauthErrorStatus, parseTokenRequest } from "../../../core/auth/mod.ts";
import { AccessToken, issueAccessToken } from "../../../core/credentials/mod.ts";
import { contextOf, type RestDeps } from "../deps.ts";
import { RETRY_AFTER_SECONDS } from "../errors.ts";

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

/** For the document only: the handler reads the parameters itself to answer RFC 6749 errors. */
const TokenRequestBody = Type.Object({
  grant_type: Type.Literal("client_credentials"),
  scope: Type.String({ description: "Space-separated scopes of spec §5.1" }),
  client_id: Type.Optional(Type.String({ description: "When not sent with HTTP Basic" })),
  client_secret: Type.Optional(Type.String({ description: "When not sent with HTTP Basic" })),
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

const parseBasic = (header: string | undefined): { clientId: string; clientSecret: string } | "malformed" | null => {
  if (!header) return null;
  if (!/^basic /i.test(header)) return "malformed";
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
 * `POST {auth_url}/oauth/token` (spec §4.2, DESIGN §3) and the JWKS. Errors follow RFC 6749 §5.2,
 * not the API's error envelope.
 */
export const tokenEndpointRoutes = (deps: RestDeps, prefix: string) => async (app: FastifyInstance) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  const fail = (reply: import("fastify").FastifyReply, error: OAuthError) => {
    reply.code(oauthErrorStatus(error.error)).header("cache-control", "no-store").header("pragma", "no-cache");
    if (error.error === "invalid_client") reply.header("www-authenticate", 'Basic realm="Laurel"');
    return reply.send(error);
  };

  app.setErrorHandler((err: FastifyError, _request, reply) => {
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
    const description =
      status === 415
        ? "Send application/x-www-form-urlencoded or application/json"
        : status === 413
          ? "Request too large"
          : "Malformed request body";
    return fail(reply, { error: "invalid_request", error_description: description });
  });

  app.post(`${prefix}/oauth/token`, {
    // Validation errors are attached, not thrown: the handler answers them as RFC 6749 errors.
    attachValidation: true,
    schema: {
      tags: ["OAuth"],
      summary: "Client credentials grant: a 7200-second EdDSA JWT access token",
      consumes: ["application/x-www-form-urlencoded", "application/json"],
      body: TokenRequestBody,
      security: [{ client_basic: [] }, {}],
      response: { 200: AccessToken, 400: OAuthErrorBody, 401: OAuthErrorBody },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const params = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      const parsed = parseTokenRequest(params, parseBasic(request.headers.authorization));
      if (!parsed.ok) return fail(reply, parsed.error);
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
      if (!result.ok) return fail(reply, result.error);
      return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(result.token);
    },
  });

  app.get(`${prefix}/.well-known/jwks.json`, {
    schema: { tags: ["OAuth"], summary: "Public keys of access tokens (JWKS)", response: { 200: Jwks } },
    handler: async (_request, reply) => reply.header("cache-control", "public, max-age=300").send(deps.jwks),
  });
};
