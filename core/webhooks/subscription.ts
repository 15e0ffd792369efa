import type { FieldError } from "../errors/mod.ts";

/**
 * Who gets which event posted (docs/interface.md, Events and webhooks). Event kinds are plain strings here; the
 * caller passes the known kinds (core/events `EVENT_TYPES`) where a list must be checked.
 */

/** The event kinds an organization chose: a list, or every kind (including kinds added later). */
export type EventTypeSelection = readonly string[] | "all";

export const NOT_DELIVERED_REASONS = ["no_webhook_url", "not_subscribed", "no_data_services"] as const;
export type NotDeliveredReason = (typeof NOT_DELIVERED_REASONS)[number];

export interface DeliveryRuleInput {
  webhookUrl: string | null | undefined;
  subscribedEventTypes: EventTypeSelection;
  eventType: string;
  /** One of the organization's OAuth applications has data services enabled. */
  hasDataServicesApplication: boolean;
}

/**
 * The kind of a test delivery a member asks for from the console. It is none of the recorded event
 * kinds (nothing happened, so the events feed does not list it), and it is posted whichever kinds
 * the organization chose: asking for it is the choice.
 */
export const TEST_EVENT_TYPE = "webhook.test";

/** Why an event is not posted, or null when it is. The event is recorded and listed either way. */
export const notDeliveredReason = (r: DeliveryRuleInput): NotDeliveredReason | null => {
  if (!r.webhookUrl) return "no_webhook_url";
  const chosen =
    r.eventType === TEST_EVENT_TYPE || r.subscribedEventTypes === "all" || r.subscribedEventTypes.includes(r.eventType);
  if (!chosen) return "not_subscribed";
  if (!r.hasDataServicesApplication) return "no_data_services";
  return null;
};

/**
 * What the organization's settings send now, whatever the event: the kinds chosen, and every
 * reason nothing at all would be posted (in the order `notDeliveredReason` checks them). A page
 * shows this so a webhook that is off never looks on; `not_subscribed` here means no kind is
 * chosen at all.
 *
 * @example deliveryOutlook({ webhookUrl: "https://x.example/h", subscribedEventTypes: [], hasDataServicesApplication: true }) // { kinds: [], blockers: ["not_subscribed"] }
 */
export const deliveryOutlook = (
  r: Omit<DeliveryRuleInput, "eventType">,
): { kinds: EventTypeSelection; blockers: NotDeliveredReason[] } => {
  const blockers: NotDeliveredReason[] = [];
  if (!r.webhookUrl) blockers.push("no_webhook_url");
  if (r.subscribedEventTypes !== "all" && r.subscribedEventTypes.length === 0) blockers.push("not_subscribed");
  if (!r.hasDataServicesApplication) blockers.push("no_data_services");
  return { kinds: r.subscribedEventTypes, blockers };
};

/**
 * All conditions of a delivery: a webhook_url, the kind chosen, a data-services application.
 *
 * @example shouldDeliver({ webhookUrl: "https://x.example/h", subscribedEventTypes: "all", eventType: "badge.created", hasDataServicesApplication: true }) // true
 */
export const shouldDeliver = (r: DeliveryRuleInput): boolean => notDeliveredReason(r) === null;

/**
 * Checks a chosen list against the known kinds: duplicates dropped, sorted; unknown kinds are field
 * errors (`event_types.2`).
 */
export const normalizeEventTypes = (
  selection: EventTypeSelection,
  known: readonly string[],
  field = "event_types",
): { eventTypes: EventTypeSelection; errors: FieldError[] } => {
  if (selection === "all") return { eventTypes: "all", errors: [] };
  const errors: FieldError[] = [];
  selection.forEach((t, i) => {
    if (!known.includes(t)) errors.push({ field: `${field}.${i}`, message: `unknown event type "${t}"` });
  });
  return { eventTypes: [...new Set(selection)].sort(), errors };
};

/**
 * Reads the CLI's `--events` value: `all`, or kinds separated by commas (blanks ignored).
 *
 * @example parseEventTypeList("badge.created, badge.state.changed") // ["badge.created", "badge.state.changed"]
 */
export const parseEventTypeList = (text: string): EventTypeSelection => {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === "all") return "all";
  return trimmed
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
};
