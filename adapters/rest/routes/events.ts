import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { EndorsementEventDetailSchema } from "../../../core/endorsements/mod.ts";
import { EVENT_LIST, EventDetailSchema, getEvent, listEvents } from "../../../core/events/mod.ts";
import type { RestDeps } from "../deps.ts";
import { guard } from "../guard.ts";
import { READ_ERRORS, resourceRoutes } from "../route_kit.ts";

/**
 * The details of each kind family (the interface's, then Laurel's own), plus a last, open branch: a detail recorded by an older release (or a
 * kind whose shape grows) is still served whole rather than failing serialization.
 */
const EventDetailResponse = Type.Union([
  ...EventDetailSchema.anyOf,
  EndorsementEventDetailSchema,
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

/**
 * The events API, scope `events` (an authorization token needs `read_enabled`). Items of the list are
 * the same details as the single read, newest first, 50 a page.
 */
export const eventRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "events", "read");
  const events = resourceRoutes(app, origin, onRequest, "events/:event_id", ["Events"], READ_ERRORS);

  events.list(
    "List the organization's events, newest first",
    EventDetailResponse,
    EVENT_LIST,
    (organizationId, query, req) => listEvents(deps, organizationId, query, req),
    (event) => event,
  );

  events.get("Get one event's detail (its shape depends on event_type)", EventDetailResponse, (organizationId, id) =>
    getEvent(deps, organizationId, id),
  );
};
