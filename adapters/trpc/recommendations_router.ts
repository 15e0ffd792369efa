import { TRPCError } from "@trpc/server";
import { Type } from "typebox";
import type { MemberActor } from "../../core/members/mod.ts";
import {
  deleteRecommendation,
  listRecommendations,
  RECOMMENDATION_STATES,
  type RecommendationListQuery,
  recommendationJson,
} from "../../core/recommendations/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const OPERATOR: MemberActor = { kind: "operator" };

const ListInput = Type.Object(
  {
    organization_id: Type.String({ format: "uuid" }),
    state: Type.Optional(Type.Enum(RECOMMENDATION_STATES)),
    recipient_email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
const DeleteInput = Type.Object(
  { organization_id: Type.String({ format: "uuid" }), recommendation_id: Type.String({ format: "uuid" }) },
  { additionalProperties: false },
);

/** An organization's recommendations for the operator: the API's use cases, acting as the operator. */
export const recommendationsRouter = router({
  list: adminProcedure.input(standard(ListInput)).query(async ({ ctx, input }) => {
    const deps = ctx.deps.recommendations;
    if (!deps) throw new TRPCError({ code: "NOT_FOUND", message: "Recommendations are not served here" });
    const req = pageRequest(input.page);
    const filters: RecommendationListQuery["filters"] = {
      ...(input.state ? { state: { kind: "values", values: [input.state] } } : {}),
      ...(input.recipient_email
        ? { recipient_email: { kind: "values", values: [input.recipient_email.trim().toLowerCase()] } }
        : {}),
    };
    const page = await listRecommendations(
      deps.store,
      OPERATOR,
      input.organization_id,
      { filters, sort: [{ key: "created_at", desc: true }], page: req.page },
      req,
    );
    return {
      data: page.items.map((r) => recommendationJson(r, deps.urls)),
      metadata: pageMetadata(req, page.items.length, page.total, (p) => `?page=${p}`),
    };
  }),
  delete: adminProcedure.input(standard(DeleteInput)).mutation(async ({ ctx, input }) => {
    const deps = ctx.deps.recommendations;
    if (!deps) throw new TRPCError({ code: "NOT_FOUND", message: "Recommendations are not served here" });
    await deleteRecommendation(
      deps.store,
      { now: ctx.deps.clock(), newId: ctx.deps.newId },
      OPERATOR,
      null,
      input.organization_id,
      input.recommendation_id,
    );
    return { deleted: true };
  }),
});
