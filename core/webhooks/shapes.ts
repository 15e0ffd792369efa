import { type Static, type TSchema, Type } from "typebox";
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES } from "./delivery.ts";
import { WEBHOOK_URL_MAX_LENGTH } from "./url.ts";

/** Shapes of the internal tools (tRPC, CLI `--json`): webhook settings, deliveries, attempts. */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: "date-time" });
const Uuid = Type.String({ format: "uuid" });

/** `"all"`, or a list of event kinds (checked against the known kinds by the use case). */
export const EventTypeSelectionSchema = Type.Union([
  Type.Literal("all"),
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200 }),
]);

export const DeliveryStatusSchema = Type.Enum(DELIVERY_STATUSES);
export const AttemptOutcomeSchema = Type.Enum(ATTEMPT_OUTCOMES);

export const WebhookSettings = Type.Object({
  organization_id: Uuid,
  webhook_url: Nullable(Type.String()),
  event_types: EventTypeSelectionSchema,
});
export type WebhookSettings = Static<typeof WebhookSettings>;

/** A change of settings: absent fields stay as they are; `webhook_url: null` clears it. */
export const WebhookSettingsInput = Type.Object(
  {
    webhook_url: Type.Optional(Nullable(Type.String({ maxLength: WEBHOOK_URL_MAX_LENGTH }))),
    event_types: Type.Optional(EventTypeSelectionSchema),
  },
  { additionalProperties: false },
);
export type WebhookSettingsInput = Static<typeof WebhookSettingsInput>;

/** `webhooks secret --json`: the current secret, and the previous one while it still signs. */
export const WebhookSecret = Type.Object({
  secret: Type.String(),
  previous_secret: Type.Optional(Type.String()),
  previous_secret_expires_at: Type.Optional(Timestamp),
});
export type WebhookSecret = Static<typeof WebhookSecret>;

/** One delivery of an event; a redelivery is another one (same event, same `webhook-id`). */
export const WebhookDelivery = Type.Object({
  id: Uuid,
  event_id: Uuid,
  organization_id: Uuid,
  event_type: Type.String(),
  status: DeliveryStatusSchema,
  attempts_count: Type.Integer({ minimum: 0 }),
  first_attempt_at: Nullable(Timestamp),
  next_attempt_at: Nullable(Timestamp),
  last_attempt_at: Nullable(Timestamp),
  succeeded_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookAttempt = Type.Object({
  id: Uuid,
  delivery_id: Uuid,
  attempt_number: Type.Integer({ minimum: 1 }),
  started_at: Timestamp,
  duration_ms: Type.Integer({ minimum: 0 }),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String()),
  outcome: AttemptOutcomeSchema,
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

/** `oauth-applications data-services`: the application's data-services flag after the change. */
export const DataServicesSetting = Type.Object({
  organization_id: Uuid,
  application_id: Type.Integer(),
  name: Type.String(),
  data_services_enabled: Type.Boolean(),
});
export type DataServicesSetting = Static<typeof DataServicesSetting>;
