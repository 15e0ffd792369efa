import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { completePathwayEarners } from "../../../core/issuing/mod.ts";
import { listQuerySchema } from "../../../core/listing/mod.ts";
import {
  archivePathway,
  type CompleteHeld,
  CreatePathwayInput,
  createPathway,
  deletePathway,
  EARNER_LIST,
  getPathway,
  listPathways,
  PATHWAY_LIST,
  Pathway,
  PathwayEarner,
  type PathwayStore,
  pathwayEarnerJson,
  pathwayEarners,
  pathwayJson,
  publishPathway,
  UpdatePathwayInput,
  updatePathway,
} from "../../../core/pathways/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { issuingContext } from "../badge_deps.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { Many, One, one } from "../envelope.ts";
import { guard } from "../guard.ts";
import { LIST_DESCRIPTION, listValidatorCompiler, readListQuery } from "../list_query.ts";
import { created, ERRORS, pageBody, resourceRoutes } from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

/**
 * Pathways, scope `pathways`: goals of milestones (sets of the organization's templates, N of each
 * required) whose completion earns the pathway's completion badge. Created as drafts, published
 * (the earners' progress is kept from then on), archived; a published pathway's milestones change
 * by its next version. `.../earners` reads the progress as kept, one recipient with `recipient_email=`.
 */
export const pathwayRoutes =
  (deps: RestDeps, store: PathwayStore, origin: string) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = guard(deps.authenticator, deps.clock, "pathways");
    const routes = resourceRoutes(app, origin, onRequest, "pathways/:pathway_id", ["Pathways"]);
    /** The earners complete at a publication or a new version get their completion badges, as any badge is issued. */
    const completeHeld =
      (request: FastifyRequest): CompleteHeld =>
      (pathway) =>
        completePathwayEarners(deps.badges.issuing, issuingContext(deps, request), pathway.id);

    routes.list(
      "List the organization's pathways, newest first",
      Pathway,
      PATHWAY_LIST,
      (organizationId, query, req, request) => listPathways(store, requestActor(request), organizationId, query, req),
      pathwayJson,
      { fresh: false },
    );

    routes.get("Get a pathway", Pathway, async (organizationId, id, request) =>
      pathwayJson(await getPathway(store, requestActor(request), organizationId, id)),
    );

    app.post(
      routes.base,
      routes.creating(
        "Create a pathway (a draft): 1 to 20 milestones of the organization's templates, and an active completion template",
        CreatePathwayInput,
        Pathway,
        async (request, reply) => {
          const { organization_id } = request.params;
          const made = await createPathway(
            store,
            requestContext(deps, request),
            requestActor(request),
            request.ip,
            organization_id,
            request.body,
          );
          return created(
            reply,
            pathwayJson(made),
            `${deps.baseUrl}/organizations/${organization_id}/pathways/${made.id}`,
          );
        },
      ),
    );

    app.put(
      routes.itemPath,
      routes.changing(
        "Update a pathway; absent fields are kept. A published pathway's new milestones or completion template make its next version",
        UpdatePathwayInput,
        Pathway,
        async (request) => {
          const p = request.params;
          return one(
            pathwayJson(
              await updatePathway(
                store,
                requestContext(deps, request),
                requestActor(request),
                request.ip,
                p.organization_id,
                p.pathway_id,
                request.body,
                completeHeld(request),
              ),
            ),
          );
        },
      ),
    );

    for (const action of ["publish", "archive"] as const) {
      app.put(`${routes.itemPath}/${action}`, {
        onRequest,
        schema: routes.schema({
          summary:
            action === "publish"
              ? "Publish a draft pathway: earners' progress is kept from then on"
              : "Archive a draft or published pathway: kept and read, its progress no longer kept",
          params: routes.params,
          response: { 200: One(Pathway), ...ERRORS },
        }),
        handler: async (request) => {
          const p = request.params;
          const ctx = requestContext(deps, request);
          const args = [store, ctx, requestActor(request), request.ip, p.organization_id, p.pathway_id] as const;
          return one(
            pathwayJson(
              await (action === "publish" ? publishPathway(...args, completeHeld(request)) : archivePathway(...args)),
            ),
          );
        },
      });
    }

    routes.remove("Delete a draft pathway (a published one is archived instead)", (organizationId, id, request) =>
      deletePathway(store, requestContext(deps, request), requestActor(request), request.ip, organizationId, id),
    );

    app.get(`${routes.itemPath}/earners`, {
      onRequest,
      schema: routes.schema({
        summary:
          "List a pathway's earners and their progress, latest change first; `recipient_email=` reads one recipient's",
        description: LIST_DESCRIPTION,
        params: routes.params,
        querystring: listQuerySchema(EARNER_LIST),
        response: { 200: Many(PathwayEarner), ...ERRORS },
      }),
      validatorCompiler: listValidatorCompiler,
      handler: async (request) => {
        const p = request.params;
        const query = readListQuery(EARNER_LIST, request);
        const req = pageRequest(query.page, query.per);
        const page = await pathwayEarners(store, requestActor(request), p.organization_id, p.pathway_id, query, req);
        return pageBody(origin, request.url, req, page, (r) => pathwayEarnerJson(page.pathway, r));
      },
    });
  };
