import { defineList, type ListQuery } from "../listing/mod.ts";
import { EVENT_TYPES } from "./event_types.ts";

/** The events list's filters; its order is fixed (newest first). */
export const EVENT_LIST = defineList({
  filters: {
    event_type: { kind: "enum", values: EVENT_TYPES },
    occurred_at: { kind: "date" },
  },
  sorts: [] as never[],
  defaultSort: [],
});
export type EventListQuery = ListQuery<keyof typeof EVENT_LIST.filters, never>;
