import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { SCOPES, USER_SCOPES } from "../../../core/auth/mod.ts";
import type { RestDeps } from "../deps.ts";

const Metadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  registration_endpoint: Type.Optional(Type.String()),
  jwks_uri: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  response_modes_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
});

/** RFC 8414 authorization server metadata, so OAuth clients configure themselves by discovery. */
export const connectMetadataRoutes = (deps: RestDeps, prefix: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const body = {
    issuer: deps.authUrl,
    authorization_endpoint: `${deps.authUrl}/oauth/authorize`,
    token_endpoint: `${deps.authUrl}/oauth/token`,
    revocation_endpoint: `${deps.authUrl}/oauth/revoke`,
    // Only platforms of the Open Badges API register themselves; applications belong to organizations.
    ...(deps.obApi ? { registration_endpoint: `${deps.authUrl}/oauth/register` } : {}),
    jwks_uri: `${deps.authUrl}/.well-known/jwks.json`,
    grant_types_supported: ["client_credentials", "authorization_code", "refresh_token"],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    scopes_supported: [...SCOPES, ...USER_SCOPES],
  };
  app.get(`${prefix}/.well-known/oauth-authorization-server`, {
    schema: { tags: ["OAuth"], summary: "Authorization server metadata (RFC 8414)", response: { 200: Metadata } },
    handler: async (_request, reply) => reply.header("cache-control", "public, max-age=300").send(body),
  });
};
