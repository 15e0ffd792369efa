import { type Static, Type } from "typebox";
import { isoSeconds } from "../shared/mod.ts";
import type { EventRecord } from "./event_record.ts";
import { EVENT_TYPES } from "./event_types.ts";

/** The body posted to the webhook; the receiver fetches the detail by `id`. */
export const WebhookSummarySchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  organization_id: Type.String({ format: "uuid" }),
  event_type: Type.Enum(EVENT_TYPES),
  occurred_at: Type.String({ format: "date-time" }),
  delivered_at: Type.String({ format: "date-time" }),
});
export type WebhookSummary = Static<typeof WebhookSummarySchema>;

/** Seconds precision, as receivers of the interface expect; `deliveredAt` is the attempt's own clock. */
export const webhookSummary = (
  record: Pick<EventRecord, "id" | "organization_id" | "event_type" | "occurred_at">,
  deliveredAt: Date,
): WebhookSummary => ({
  id: record.id,
  organization_id: record.organization_id,
  event_type: record.event_type,
  occurred_at: isoSeconds(record.occurred_at),
  delivered_at: isoSeconds(deliveredAt),
});
