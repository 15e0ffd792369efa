import { type Static, Type } from "typebox";
import type { OutboxEvent } from "../events/mod.ts";

/**
 * Every message one Laurel process sends another over the bus. A receiver checks each against its
 * schema before acting on it: anything on the bus may have published it, and a process of another
 * version may be sending. Object schemas accept extra properties, so a newer sender can add one.
 */

const Uuid = Type.String({ format: "uuid" });

/**
 * An event recorded and ready for delivery. A message the relay sealed (`mac`, checked by the bus
 * adapter) is taken as it stands: the relay read its fields from the event's row. Of any other the
 * worker takes `id` alone and reads the rest from that row. `event_type` is any text: a newer relay
 * may publish a type this process does not know yet, and that message must still be delivered.
 */
export const EventMessageSchema = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  event_type: Type.String({ minLength: 1 }),
  occurred_at: Type.String({ format: "date-time" }),
  /** The relay's seal over the fields above. */
  mac: Type.Optional(Type.String({ maxLength: 100 })),
});
export type EventMessage = Static<typeof EventMessageSchema>;

export const eventMessage = (e: OutboxEvent): EventMessage => ({
  id: e.id,
  organization_id: e.organization_id,
  event_type: e.event_type,
  occurred_at: e.occurred_at.toISOString(),
});

/**
 * "Attempt this delivery now", from the retry scheduler. The organization is a hint the worker
 * checks against the delivery it claims.
 */
export const DueDeliverySchema = Type.Object({
  delivery_id: Uuid,
  organization_id: Uuid,
});
export type DueDelivery = Static<typeof DueDeliverySchema>;

/** An organization's delivery settings changed: workers drop what they cached of them. */
export const WebhookSettingsChangeSchema = Type.Object({
  organization_id: Uuid,
});
export type WebhookSettingsChange = Static<typeof WebhookSettingsChangeSchema>;

/** A credential revoked: every API process drops it from its cache. */
export const RevocationSchema = Type.Union([
  Type.Object({ kind: Type.Literal("application"), clientId: Type.String({ minLength: 1 }) }),
  Type.Object({ kind: Type.Literal("token"), digest: Type.String({ minLength: 1 }) }),
]);
export type Revocation = Static<typeof RevocationSchema>;

export const HOSTED_KINDS = ["assertion", "badge_class", "issuer", "profile", "credential", "status_list"] as const;

/** A hosted record to drop from every process's cache; without `id`, every record of that kind. */
export const HostedInvalidationSchema = Type.Object({
  kind: Type.Enum(HOSTED_KINDS),
  id: Type.Optional(Type.String({ minLength: 1 })),
});
export type HostedInvalidation = Static<typeof HostedInvalidationSchema>;

/** Invalidations travel in batches: one message per change, however many records it touched. */
export const HostedInvalidationsSchema = Type.Array(HostedInvalidationSchema);
export type HostedInvalidations = Static<typeof HostedInvalidationsSchema>;
