import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  BADGE_LIST,
  BadgeBatchBody,
  BadgeBatchEnvelope,
  BadgeIssueBody,
  BadgeJsonSchema,
  BadgeReplaceBody,
  BadgeRevokeBody,
  badgeJson,
} from "../../../core/badges/mod.ts";
import { validationFailed } from "../../../core/errors/mod.ts";
import {
  type BadgeView,
  deleteBadge,
  getBadge,
  issueBadge,
  issueBatch,
  listBadges,
  replaceBadge,
  revokeBadge,
} from "../../../core/issuing/mod.ts";
import { ErrorBody, errorBody } from "../../http/mod.ts";
import { issuingContext } from "../badge_deps.ts";
import type { RestDeps } from "../deps.ts";
import { OrganizationParams, one } from "../envelope.ts";
import { guard } from "../guard.ts";
import { NO_LIMITS } from "../rate_limits.ts";
import { BODY_ERRORS, batchValidator, created, resourceRoutes } from "../route_kit.ts";

/** Each item of a batch: the badge issued, or why it was not (the error body's `data`). */
const BatchItem = Type.Union([
  Type.Object({ index: Type.Integer(), status: Type.Literal("issued"), badge: BadgeJsonSchema }),
  Type.Object({ index: Type.Integer(), status: Type.Literal("failed"), error: ErrorBody.properties.data }),
]);
const BatchResponse = Type.Object({
  data: Type.Array(BatchItem),
  metadata: Type.Object({ issued_count: Type.Integer(), failed_count: Type.Integer() }),
});

/** Issued badges (docs/interface.md, Resources), scope `issued_badges`. */
export const badgeRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "issued_badges");
  const badges = resourceRoutes(app, origin, onRequest, "badges/:badge_id", ["Badges"]);
  const { base, schema } = badges;
  const issuing = deps.badges.issuing;
  const json = (v: BadgeView) => badgeJson(v.badge, v.template, v.issuer, issuing.urls, v.authorizedIssuer);
  const location = (v: BadgeView) => `${deps.baseUrl}/organizations/${v.badge.organization_id}/badges/${v.badge.id}`;

  app.post(base, {
    preHandler: (deps.limits ?? NO_LIMITS).issue,
    ...badges.creating(
      "Issue a badge from an active template",
      BadgeIssueBody,
      BadgeJsonSchema,
      async (request, reply) => {
        const { organization_id } = request.params;
        const issued = await issueBadge(issuing, issuingContext(deps, request), organization_id, request.body);
        return created(reply, json(issued.view), location(issued.view));
      },
    ),
  });

  app.post(`${base}/batch`, {
    onRequest,
    preHandler: (deps.limits ?? NO_LIMITS).issue,
    schema: schema({
      summary: "Issue several badges; each item is issued or reported on its own (201 when any was issued)",
      description:
        "Each item has the body of a single issue (at most 100 items). When no item could be issued the answer is a 422 listing every item's errors (`badges.<i>.<field>`).",
      params: OrganizationParams,
      body: BadgeBatchBody,
      response: { 201: BatchResponse, ...BODY_ERRORS },
    }),
    validatorCompiler: batchValidator(BadgeBatchEnvelope),
    handler: async (request, reply) => {
      const { organization_id } = request.params;
      const items = request.body.badges;
      const results = await issueBatch(issuing, issuingContext(deps, request), organization_id, items);
      const issued = results.filter((r) => r.ok);
      if (issued.length === 0) {
        throw validationFailed(
          "No badge of the batch could be issued",
          results.flatMap((r) => (r.ok ? [] : r.error.errors)),
        );
      }
      reply.code(201);
      return {
        data: results.map((r) =>
          r.ok
            ? { index: r.index, status: "issued" as const, badge: json(r.value.view) }
            : {
                index: r.index,
                status: "failed" as const,
                error: errorBody(r.error.code, r.error.message, r.error.errors).data,
              },
        ),
        metadata: { issued_count: issued.length, failed_count: results.length - issued.length },
      };
    },
  });

  badges.list(
    "List badges, most recently issued first unless sorted",
    BadgeJsonSchema,
    BADGE_LIST,
    (organizationId, query, req) => listBadges(issuing, organizationId, query, req),
    json,
  );

  badges.get("Get a badge", BadgeJsonSchema, async (organizationId, id) =>
    json(await getBadge(issuing, organizationId, id)),
  );

  app.put(
    `${base}/:badge_id/revoke`,
    badges.changing(
      "Revoke a pending or accepted badge (`reason` required)",
      BadgeRevokeBody,
      BadgeJsonSchema,
      async (request) => {
        const p = request.params;
        const body = request.body;
        return one(
          json(await revokeBadge(issuing, issuingContext(deps, request), p.organization_id, p.badge_id, body)),
        );
      },
    ),
  );

  app.post(`${base}/:badge_id/replace`, {
    onRequest,
    schema: badges.creation(
      "Replace a badge with a new one (same template and recipient unless given)",
      badges.params,
      BadgeReplaceBody,
      BadgeJsonSchema,
    ),
    handler: async (request, reply) => {
      const p = request.params;
      const body = request.body;
      const { issued } = await replaceBadge(
        issuing,
        issuingContext(deps, request),
        p.organization_id,
        p.badge_id,
        body,
      );
      return created(reply, json(issued.view), location(issued.view));
    },
  });

  badges.remove("Delete a badge", (organizationId, id, request) =>
    deleteBadge(issuing, issuingContext(deps, request), organizationId, id),
  );
};
