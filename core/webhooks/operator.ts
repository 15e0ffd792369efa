import { notFound, validationFailed } from "../errors/mod.ts";
import type { EventStore } from "../events/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { webhookAttemptJson, webhookDeliveryJson } from "./attempt.ts";
import { newDeliveryProgress } from "./delivery.ts";
import type { DeliveryAdminStore, DeliveryFilter, DeliveryTargets } from "./ports.ts";
import type { WebhookAttempt, WebhookDelivery } from "./shapes.ts";
import { type NotDeliveredReason, notDeliveredReason, TEST_EVENT_TYPE } from "./subscription.ts";

export interface OperatorDeps {
  deliveries: DeliveryAdminStore;
  events: Pick<EventStore, "get">;
  targets: DeliveryTargets;
}

const REASON_TEXT: Record<NotDeliveredReason, string> = {
  no_webhook_url: "the organization has no webhook_url",
  not_subscribed: "the organization does not receive this kind of event",
  no_data_services: "none of the organization's OAuth applications has data services enabled",
};

export const listDeliveries = async (
  deps: Pick<OperatorDeps, "deliveries">,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<{ items: WebhookDelivery[]; total: number }> => {
  const result = await deps.deliveries.list(filter, page);
  return { items: result.items.map(webhookDeliveryJson), total: result.total };
};

/** Newest first, at most `limit` (the operator narrows by event or delivery for more). */
export const listAttempts = async (
  deps: Pick<OperatorDeps, "deliveries">,
  filter: { organizationId: string; eventId?: string | undefined; deliveryId?: string | undefined },
  limit = 200,
): Promise<WebhookAttempt[]> => (await deps.deliveries.attempts(filter, limit)).map(webhookAttemptJson);

/**
 * An operator's redelivery: a new delivery of the event (same `webhook-id`, a fresh 25-day window),
 * due at once. Refused while another delivery of it is still under way, and when the organization
 * would not be posted this event now (docs/interface.md, Events and webhooks).
 */
export const redeliverEvent = async (
  deps: OperatorDeps,
  ctx: { now: Date; newId: () => string },
  organizationId: string,
  eventId: string,
): Promise<WebhookDelivery> => {
  const latest = await deps.deliveries.latestForEvent(organizationId, eventId);
  // A test delivery has no event row: its own record names what to post again.
  const event =
    (await deps.events.get(organizationId, eventId)) ??
    (latest?.event_type === TEST_EVENT_TYPE
      ? { id: latest.event_id, event_type: latest.event_type, occurred_at: latest.occurred_at }
      : null);
  if (!event) throw notFound("Event");
  if (latest && (latest.progress.status === "pending" || latest.progress.status === "delivering")) {
    throw validationFailed("A delivery of this event is still under way", [
      { field: "event_id", message: `delivery ${latest.id} is ${latest.progress.status}` },
    ]);
  }
  const target = await deps.targets.target(organizationId);
  const reason = notDeliveredReason({
    webhookUrl: target.webhookUrl,
    subscribedEventTypes: target.eventTypes,
    eventType: event.event_type,
    hasDataServicesApplication: target.hasDataServicesApplication,
  });
  if (reason)
    throw validationFailed(`Not redelivered: ${REASON_TEXT[reason]}`, [{ field: "event_id", message: reason }]);
  const record = {
    id: ctx.newId(),
    event_id: event.id,
    organization_id: organizationId,
    event_type: event.event_type,
    occurred_at: event.occurred_at,
    created_at: ctx.now,
    progress: newDeliveryProgress(ctx.now),
  };
  await deps.deliveries.insert(record);
  return webhookDeliveryJson(record);
};

/**
 * Redelivers every event of the organization whose latest delivery failed at or after `since`
 * (of the kinds it still receives). Refused when the organization would not be posted at all.
 */
export const redeliverFailed = async (
  deps: Pick<OperatorDeps, "deliveries" | "targets">,
  ctx: { now: Date; newId: () => string },
  organizationId: string,
  since: Date,
): Promise<{ redelivered: number }> => {
  const target = await deps.targets.target(organizationId);
  const reason = !target.webhookUrl ? "no_webhook_url" : !target.hasDataServicesApplication ? "no_data_services" : null;
  if (reason)
    throw validationFailed(`Not redelivered: ${REASON_TEXT[reason]}`, [{ field: "organization_id", message: reason }]);
  const redelivered = await deps.deliveries.redeliverFailed(
    organizationId,
    since,
    target.eventTypes,
    ctx.now,
    ctx.newId,
  );
  return { redelivered };
};

/** One line of the delivery log: the delivery and its attempts, newest first. */
export interface DeliveryLogEntry {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

/**
 * A keyset page of the organization's delivery log, newest first, after the delivery `after`;
 * `next` is the cursor of the following page, null on the last. Nothing is counted, so a page
 * costs the same however many deliveries the organization has.
 */
export const deliveryLog = async (
  deps: Pick<OperatorDeps, "deliveries">,
  organizationId: string,
  after: string | null,
  limit: number,
): Promise<{ entries: DeliveryLogEntry[]; next: string | null }> => {
  const rows = await deps.deliveries.listAfter(organizationId, after, limit + 1);
  const page = rows.slice(0, limit);
  const attempts = await deps.deliveries.attemptsOf(
    organizationId,
    page.map((d) => d.id),
  );
  return {
    entries: page.map((d) => ({
      delivery: webhookDeliveryJson(d),
      attempts: attempts.filter((a) => a.delivery_id === d.id).map(webhookAttemptJson),
    })),
    next: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
};

/**
 * A test delivery the organization asks for: a delivery of kind `webhook.test` due at once, posted
 * by the workers like any other (signed, retried, listed in the delivery log). Refused, as a
 * redelivery is, when the organization would not be posted anything now.
 */
export const sendTestEvent = async (
  deps: Pick<OperatorDeps, "deliveries" | "targets">,
  ctx: { now: Date; newId: () => string },
  organizationId: string,
): Promise<WebhookDelivery> => {
  const target = await deps.targets.target(organizationId);
  const reason = notDeliveredReason({
    webhookUrl: target.webhookUrl,
    subscribedEventTypes: target.eventTypes,
    eventType: TEST_EVENT_TYPE,
    hasDataServicesApplication: target.hasDataServicesApplication,
  });
  if (reason)
    throw validationFailed(`No test sent: ${REASON_TEXT[reason]}`, [{ field: "organization_id", message: reason }]);
  const eventId = ctx.newId();
  const record = {
    id: eventId,
    event_id: eventId,
    organization_id: organizationId,
    event_type: TEST_EVENT_TYPE,
    occurred_at: ctx.now,
    created_at: ctx.now,
    progress: newDeliveryProgress(ctx.now),
  };
  await deps.deliveries.insert(record);
  return webhookDeliveryJson(record);
};
