import { notFound } from "../errors/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { type EventDetail, eventDetail } from "./detail.ts";
import type { EventListQuery } from "./event_list.ts";
import type { EventStore } from "./ports.ts";

/**
 * A page of event details, newest first. The workforce reduction is applied here, at
 * read time, with the organization's current authorization.
 */
export const listEvents = async (
  deps: { events: EventStore },
  organizationId: string,
  query: EventListQuery,
  page: PageRequest,
): Promise<{ items: EventDetail[]; total: number }> => {
  const [result, workforceAuthorized] = await Promise.all([
    deps.events.list(organizationId, query, page),
    deps.events.workforceAuthorized(organizationId),
  ]);
  return { items: result.items.map((e) => eventDetail(e, { workforceAuthorized })), total: result.total };
};

/** One event's detail; another organization's event is not found. */
export const getEvent = async (
  deps: { events: EventStore },
  organizationId: string,
  id: string,
): Promise<EventDetail> => {
  const [record, workforceAuthorized] = await Promise.all([
    deps.events.get(organizationId, id),
    deps.events.workforceAuthorized(organizationId),
  ]);
  if (!record) throw notFound("Event");
  return eventDetail(record, { workforceAuthorized });
};
