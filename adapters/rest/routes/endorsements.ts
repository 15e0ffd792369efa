import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  CreateEndorsementInput,
  changeEndorsement,
  createEndorsement,
  Endorsement,
  type EndorsementAction,
  type EndorsementDeps,
  type EndorsementSide,
  type EndorsementTarget,
  type EndorsementView,
  endorsementJson,
  listEndorsements,
} from "../../../core/endorsements/mod.ts";
import { type RestDeps, requestContext } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery, pageOf } from "../envelope.ts";
import { guard } from "../guard.ts";
import {
  BODY_ERRORS,
  created,
  documented,
  ERRORS,
  noContent,
  pageBody,
  READ_ERRORS,
  resourceParams,
} from "../route_kit.ts";
import { requestActor } from "./memberships.ts";

export interface EndorsementRestDeps extends EndorsementDeps {
  /** After an endorsement was accepted or stopped being published: the hosted records embedding it are dropped. */
  onChanged(kind: EndorsementTarget, targetId: string): Promise<void>;
}

const schema = documented(["Endorsements"]);
const SCOPE_NOTE =
  "Scope `badge_templates` (an authorization token's read or write permission as for templates), since an endorsement is published in badge templates' achievements and issuer profiles.";
const ItemParams = resourceParams("endorsement_id");

/**
 * Endorsements between organizations: `GET` and `POST /organizations/<id>/endorsements` (given),
 * `GET .../endorsements/received`, `PUT .../endorsements/<id>/accept|reject` (the endorsed side) and
 * `DELETE .../endorsements/<id>` (the endorser withdraws). Who may do what is core's rule.
 */
export const endorsementRoutes =
  (deps: RestDeps, endorsements: EndorsementRestDeps, origin: string) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const read = guard(deps.authenticator, deps.clock, "badge_templates", "read");
    const write = guard(deps.authenticator, deps.clock, "badge_templates", "write");
    const remove = guard(deps.authenticator, deps.clock, "badge_templates", "delete");
    const toJson = (e: EndorsementView) => endorsementJson(e, endorsements.v3Base);
    const { store } = endorsements;

    const listing = (side: EndorsementSide, summary: string) => ({
      onRequest: read,
      schema: schema({
        summary,
        description: SCOPE_NOTE,
        params: OrganizationParams,
        querystring: PageQuery,
        response: { 200: Many(Endorsement), ...READ_ERRORS },
      }),
      handler: async (
        request: {
          params: { organization_id: string };
          query: { page?: number };
          url: string;
        } & Parameters<typeof requestActor>[0],
      ) => {
        const req = pageOf(request.query);
        const page = await listEndorsements(store, requestActor(request), request.params.organization_id, side, req);
        return pageBody(origin, request.url, req, page, toJson);
      },
    });

    app.get(
      "/organizations/:organization_id/endorsements",
      listing("given", "List the endorsements the organization gave"),
    );
    app.get(
      "/organizations/:organization_id/endorsements/received",
      listing("received", "List the endorsements the organization received"),
    );

    app.post("/organizations/:organization_id/endorsements", {
      onRequest: write,
      schema: schema({
        summary: "Endorse another organization's badge template, or that organization",
        description: `The endorsement waits for the endorsed organization to accept it; only then is it published, as an OB 3.0 EndorsementCredential. An organization cannot endorse itself or its templates, nor endorse one target twice while an endorsement of it is pending or accepted. ${SCOPE_NOTE}`,
        params: OrganizationParams,
        body: CreateEndorsementInput,
        response: { 201: One(Endorsement), ...BODY_ERRORS },
      }),
      handler: async (request, reply) => {
        const made = await createEndorsement(
          endorsements,
          requestContext(deps, request),
          requestActor(request),
          request.ip,
          request.params.organization_id,
          request.body,
        );
        return created(reply, toJson(made));
      },
    });

    const change = async (
      request: { params: { organization_id: string; endorsement_id: string }; ip: string } & Parameters<
        typeof requestActor
      >[0] &
        Parameters<typeof requestContext>[1],
      action: EndorsementAction,
    ) => {
      const changed = await changeEndorsement(
        endorsements,
        requestContext(deps, request),
        requestActor(request),
        request.ip,
        request.params.organization_id,
        request.params.endorsement_id,
        action,
      );
      await endorsements.onChanged(changed.target_kind, changed.target_id);
      return changed;
    };

    for (const action of ["accept", "reject"] as const) {
      app.put(`/organizations/:organization_id/endorsements/:endorsement_id/${action}`, {
        onRequest: write,
        schema: schema({
          summary: action === "accept" ? "Accept an endorsement received" : "Reject an endorsement received",
          description:
            action === "accept"
              ? `Only the endorsed organization accepts, a pending endorsement; it is then embedded in the endorsed achievement or profile. ${SCOPE_NOTE}`
              : `Only the endorsed organization rejects, a pending or accepted endorsement; it is no longer published. ${SCOPE_NOTE}`,
          params: ItemParams,
          response: { 200: One(Endorsement), ...ERRORS },
        }),
        handler: async (request) => one(toJson(await change(request, action))),
      });
    }

    app.delete("/organizations/:organization_id/endorsements/:endorsement_id", {
      onRequest: remove,
      schema: schema({
        summary: "Withdraw an endorsement given",
        description: `Only the endorsing organization withdraws, a pending or accepted endorsement; it is no longer published. ${SCOPE_NOTE}`,
        params: ItemParams,
        response: { 204: Type.Null({ description: "Withdrawn" }), ...ERRORS },
      }),
      handler: async (request, reply) => {
        await change(request, "withdraw");
        return noContent(reply);
      },
    });
  };
