import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { EVENT_LIST, EventDetailSchema, getEvent, listEvents } from "../../../core/events/mod.ts";
import { listQuerySchema } from "../../../core/listing/mod.ts";
import type { RestDeps } from "../deps.ts";
import { Many, One, OrganizationParams, one } from "../envelope.ts";
import { guard } from "../guard.ts";
import { LIST_DESCRIPTION, listValidatorCompiler } from "../list_query.ts";
import { documented, freshListHandler, READ_ERRORS, resourceParams } from "../route_kit.ts";

const EventParams = resourceParams("event_id");

/**
 * The details of each kind family, plus a last, open branch: a detail recorded by an older release (or a
 * kind whose shape grows) is still served whole rather than failing serialization.
 */
const EventDetailResponse = Type.Union([
  ...EventDetailSchema.anyOf,
  Type.Object(
    {
      id: Type.String({ format: "uuid" }),
      organization_id: Type.String({ format: "uuid" }),
      event_type: Type.String(),
      occurred_at: Type.String({ format: "date-time" }),
    },
    { additionalProperties: true },
  ),
]);

const schema = documented(["Events"]);

/**
 * The events API, scope `events` (an authorization token needs `read_enabled`). Items of the list are
 * the same details as the single read, newest first, 50 a page.
 */
export const eventRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "events", "read");
  const base = "/organizations/:organization_id/events";

  app.get(base, {
    onRequest,
    schema: schema({
      summary: "List the organization's events, newest first",
      description: LIST_DESCRIPTION,
      params: OrganizationParams,
      querystring: listQuerySchema(EVENT_LIST),
      response: { 200: Many(EventDetailResponse), ...READ_ERRORS },
    }),
    validatorCompiler: listValidatorCompiler,
    handler: freshListHandler(
      origin,
      EVENT_LIST,
      (org, query, req) => listEvents(deps, org, query, req),
      (event) => event,
    ),
  });

  app.get(`${base}/:event_id`, {
    onRequest,
    schema: schema({
      summary: "Get one event's detail (its shape depends on event_type)",
      params: EventParams,
      response: { 200: One(EventDetailResponse), ...READ_ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      return one(await getEvent(deps, p.organization_id, p.event_id));
    },
  });
};
