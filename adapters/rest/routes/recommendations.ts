import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  CreateRecommendationsInput,
  createRecommendations,
  deleteRecommendation,
  getRecommendation,
  listRecommendations,
  RECOMMENDATION_LIST,
  Recommendation,
  type RecommendationDeps,
  type RecommendationView,
  recommendationJson,
} from "../../../core/recommendations/mod.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { guard } from "../guard.ts";
import { created, resourceRoutes } from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

/**
 * Recommendations, scope `recommendations`: "earn this next", for an address or an employee
 * record, one or a batch of up to 1,000 written together. Fulfilled by itself once a badge of the
 * template is issued to the address; dismissed by the person on their wallet.
 */
export const recommendationRoutes =
  (deps: RestDeps, recommendations: RecommendationDeps, origin: string) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = guard(deps.authenticator, deps.clock, "recommendations");
    const routes = resourceRoutes(app, origin, onRequest, "recommendations/:recommendation_id", ["Recommendations"]);
    const { store, urls } = recommendations;
    const toJson = (r: RecommendationView) => recommendationJson(r, urls);

    routes.list(
      "List the organization's recommendations, newest first",
      Recommendation,
      RECOMMENDATION_LIST,
      (organizationId, query, req, request) =>
        listRecommendations(store, requestActor(request), organizationId, query, req),
      toJson,
      { fresh: false },
    );

    routes.get("Get a recommendation", Recommendation, async (organizationId, id, request) =>
      toJson(await getRecommendation(store, requestActor(request), organizationId, id)),
    );

    app.post(
      routes.base,
      routes.creating(
        "Recommend a badge template to a person (or up to 1,000 at once, all or none); each is mailed once while the organization's mail budget lasts",
        CreateRecommendationsInput,
        Type.Union([Recommendation, Type.Array(Recommendation)]),
        async (request, reply) => {
          const { organization_id } = request.params;
          const made = await createRecommendations(
            recommendations,
            requestContext(deps, request),
            requestActor(request),
            request.ip,
            organization_id,
            request.body,
          );
          if ("recommendations" in request.body) return created(reply, made.map(toJson));
          const [one] = made.map(toJson);
          return created(reply, one, `${deps.baseUrl}/organizations/${organization_id}/recommendations/${one?.id}`);
        },
      ),
    );

    routes.remove("Delete a recommendation: it leaves the person's wallet", (organizationId, id, request) =>
      deleteRecommendation(store, requestContext(deps, request), requestActor(request), request.ip, organizationId, id),
    );
  };
