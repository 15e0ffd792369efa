import { Type } from "typebox";
import {
  ENDORSEMENT_EVENT_TYPES,
  type EndorsementEventType,
  type EventContext,
  type EventRecord,
  eventDetailCommon,
  eventRecord,
} from "../events/mod.ts";
import { Endorsement } from "./credential.ts";

/**
 * endorsement.* (Laurel's own kinds, beside the interface's): the endorsement as the endorsements
 * API answers it, after the change.
 */
export const EndorsementEventDetailSchema = Type.Object({
  ...eventDetailCommon,
  event_type: Type.Enum(ENDORSEMENT_EVENT_TYPES),
  endorsement: Endorsement,
});

export const endorsementEvent = (
  kind: EndorsementEventType,
  endorsement: Endorsement,
  ctx: EventContext,
): EventRecord => eventRecord(kind, { endorsement }, ctx);
