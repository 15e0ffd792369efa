import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { AuthorizationTokenDeps, OAuthApplicationDeps, OrganizationStore } from "../../core/credentials/mod.ts";
import { type CoreError, type CoreErrorCode, isCoreError, unauthenticated } from "../../core/errors/mod.ts";
import type { IssuerAuthorizationStore } from "../../core/issuer_authorizations/mod.ts";
import type { IssuingDeps } from "../../core/issuing/mod.ts";
import type { MemberDeps } from "../../core/members/mod.ts";
import type { PlatformStore } from "../../core/ob_api/mod.ts";
import type { PathwayStore } from "../../core/pathways/mod.ts";
import type { RecommendationDeps } from "../../core/recommendations/mod.ts";
import type { EmployeeStore, WorkforceDeps } from "../../core/workforce/mod.ts";
import type { WebhookAdminDeps } from "./webhooks_router.ts";

/**
 * What internal procedures can reach; filled by the app, transport-free so tests use createCaller.
 * The stores of authorization tokens and OAuth applications are the core's own deps of each.
 */
export interface TrpcDeps extends AuthorizationTokenDeps, OAuthApplicationDeps {
  baseUrl: string;
  clock: () => Date;
  newId: () => string;
  organizations: OrganizationStore;
  /** Earners and their badges: the issuing ports and the event id source (UUIDv7). */
  badges: { issuing: IssuingDeps; newEventId: () => string; newSalt: () => string };
  /** Memberships and invitations. */
  members: MemberDeps;
  /** Webhook settings, deliveries and redeliveries. */
  webhooks: WebhookAdminDeps;
  /** Workforce authorization, employment events and employee records (the CLI's import). */
  workforce: WorkforceDeps & { employees: EmployeeStore };
  /** Recommendations of templates to people; absent when they are not served. */
  recommendations?: Pick<RecommendationDeps, "store" | "urls">;
  /** Pathways and their earners' progress; absent when they are not served. */
  pathways?: PathwayStore;
  /** Organizations authorized to issue others' templates; absent when they are not served. */
  issuerAuthorizations?: IssuerAuthorizationStore;
  /** Platforms registered through the Open Badges API; absent when it is not served. */
  obApi?: { platforms: Pick<PlatformStore, "list" | "remove"> };
}

export interface TrpcContext {
  deps: TrpcDeps;
  /** True when the request carried the admin token. */
  admin: boolean;
}

export const createContextInner = (deps: TrpcDeps, admin: boolean): TrpcContext => ({ deps, admin });

/**
 * Errors carry the core error's field errors (`data.errors`, as the REST body's `errors`), and
 * never a stack trace: what a tool shows its operator is the message and the fields.
 */
const t = initTRPC.context<TrpcContext>().create({
  isDev: false,
  errorFormatter: ({ shape, error }) => {
    const cause = error.cause as unknown;
    const issues = (
      cause as { issues?: Array<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> }
    )?.issues;
    const errors = isCoreError(cause)
      ? cause.errors
      : Array.isArray(issues)
        ? issues.map((i) => ({
            field: (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join("."),
            message: i.message,
          }))
        : [];
    return {
      ...shape,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        errors,
        ...(isCoreError(cause) && cause.reason ? { reason: cause.reason } : {}),
      },
    };
  },
});

/** The one table from core codes to tRPC codes: a new code without one does not compile. */
export const TRPC_FOR_CODE = {
  bad_request: "BAD_REQUEST",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  validation_failed: "UNPROCESSABLE_CONTENT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  rate_limited: "TOO_MANY_REQUESTS",
  unavailable: "SERVICE_UNAVAILABLE",
  internal: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<CoreErrorCode, TRPC_ERROR_CODE_KEY>;

/** The tRPC error answering a core error: the only place a tRPC code is derived from a core code. */
export const trpcError = (err: CoreError): TRPCError =>
  new TRPCError({ code: TRPC_FOR_CODE[err.code], message: err.message, cause: err });

const coreErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isCoreError(result.error.cause)) throw trpcError(result.error.cause);
  return result;
});

export const router = t.router;

/** Every internal procedure needs the admin token. */
export const adminProcedure = t.procedure
  .use(({ ctx, next }) => {
    if (!ctx.admin) throw trpcError(unauthenticated("The admin token is required"));
    return next();
  })
  .use(coreErrors);

export const createCallerFactory = t.createCallerFactory;
