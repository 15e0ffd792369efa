import type { FastifyReply, FastifyRequest } from "fastify";
import { type Action, actionForMethod, authorize, type Scope } from "../../core/auth/mod.ts";
import { forbidden, resultOf, unauthenticated } from "../../core/errors/mod.ts";
import type { Authenticated, Authenticator } from "./authenticator.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth: Authenticated | null;
  }
}

/**
 * The path's `organization_id` as the router read it, or "" when the path names none. Hooks run on
 * routes with different parameters (and before their schema is checked), so they read it here.
 */
export const organizationParam = (request: { params: unknown }): string => {
  const params = request.params;
  if (typeof params !== "object" || params === null || !("organization_id" in params)) return "";
  return typeof params.organization_id === "string" ? params.organization_id : "";
};

/**
 * An onRequest hook: authenticates the caller (401) and checks the family's scope or flag and the
 * path's organization (403) before the body is even read. A path that names no organization (the
 * list of organizations) is the caller's own.
 */
export const guard = (authenticator: Authenticator, clock: () => Date, family: Scope | null, action?: Action) =>
  async function guardRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const now = clock();
    const auth = await authenticator.authenticate(request.headers.authorization, now);
    if (!auth) throw unauthenticated("A valid authorization token (HTTP Basic) or access token (Bearer) is required");
    const params = request.params;
    const named = typeof params === "object" && params !== null && "organization_id" in params;
    const organizationId = named ? organizationParam(request) : auth.credential.organizationId;
    const allowed = resultOf(() =>
      authorize(auth.credential, { organizationId, family, action: action ?? actionForMethod(request.method) }),
    );
    authenticator.recordUse(auth.ref, allowed.ok, now);
    if (!allowed.ok) throw allowed.error;
    request.auth = auth;
  };

export const callerOf = (request: FastifyRequest): Authenticated => {
  if (!request.auth) throw forbidden("No authenticated caller");
  return request.auth;
};
