import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { seesOnlyReadOnlyTokens } from "../../../core/auth/mod.ts";
import {
  AuthorizationToken,
  authorizationTokenJson,
  CreateAuthorizationTokenInput,
  createAuthorizationToken,
  listAuthorizationTokens,
  RotateAuthorizationTokenInput,
  rotateAuthorizationToken,
} from "../../../core/credentials/mod.ts";
import { forbidden } from "../../../core/errors/mod.ts";
import { type RestDeps, requestContext, urlsOf } from "../deps.ts";
import { Many, OrganizationParams, optionalBody, PageQuery, pageOf } from "../envelope.ts";
import { freshReads, sendFreshBody } from "../fresh_reads.ts";
import { callerOf, guard } from "../guard.ts";
import { BODY_ERRORS, created, familySchemas, organizationOf, pageBody } from "../route_kit.ts";

const tokens = familySchemas(["Authorization tokens"]);
const { schema } = tokens;

/** Authorization tokens (docs/interface.md, Authentication), scope `authorization_tokens`. */
export const authorizationTokenRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "authorization_tokens");
  const base = "/organizations/:organization_id/authorization_tokens";
  const lists = freshReads<Buffer>();

  app.get(base, {
    onRequest,
    schema: schema({
      summary: "List authorization tokens (read-only ones only, for a caller without write and delete)",
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: Many(AuthorizationToken), ...BODY_ERRORS },
    }),
    handler: async (request, reply) => {
      const caller = callerOf(request).credential;
      const req = pageOf(request.query);
      // The body depends on the organization, which tokens the caller may see, and the URL only.
      const key = `${caller.organizationId} ${seesOnlyReadOnlyTokens(caller) ? "read-only" : "all"} ${request.url}`;
      return sendFreshBody(lists, reply, key, async () => {
        const [org, page] = await Promise.all([
          organizationOf(deps.organizations, caller.organizationId),
          listAuthorizationTokens(deps, caller, req),
        ]);
        return pageBody(origin, request.url, req, page, (t) =>
          authorizationTokenJson(t, deps.secrets.open(t.token_sealed), org, urlsOf(deps)),
        );
      });
    },
  });

  app.post(base, {
    onRequest,
    preValidation: optionalBody,
    schema: tokens.creation(
      "Create an authorization token, no stronger than the caller (180 days)",
      OrganizationParams,
      CreateAuthorizationTokenInput,
      AuthorizationToken,
    ),
    handler: async (request, reply) => {
      const caller = callerOf(request).credential;
      const org = await organizationOf(deps.organizations, caller.organizationId);
      const { token, value } = await createAuthorizationToken(
        deps,
        requestContext(deps, request),
        caller,
        request.body ?? {},
      );
      return created(reply, authorizationTokenJson(token, value, org, urlsOf(deps)));
    },
  });

  app.post(`${base}/rotate`, {
    onRequest,
    preValidation: optionalBody,
    schema: tokens.creation(
      "Replace the calling authorization token; the caller stops working at once",
      OrganizationParams,
      RotateAuthorizationTokenInput,
      AuthorizationToken,
      { security: [{ basic: [] }] },
    ),
    handler: async (request, reply) => {
      const auth = callerOf(request);
      if (!auth.token) throw forbidden("Rotation replaces the calling authorization token; call it with HTTP Basic");
      const org = await organizationOf(deps.organizations, auth.credential.organizationId);
      const { token, value } = await rotateAuthorizationToken(
        deps,
        requestContext(deps, request),
        auth.credential,
        auth.token,
        request.body ?? {},
      );
      return created(reply, authorizationTokenJson(token, value, org, urlsOf(deps)));
    },
  });
};
