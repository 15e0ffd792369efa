import { defineList, type ListQuery } from "../listing/mod.ts";
import { BADGE_STATES } from "./badge_state.ts";
import { TEMPLATE_STATES } from "./template_state.ts";

/** The badge list's filters and sorts (newest issued first unless sorted). */
export const BADGE_LIST = defineList({
  filters: {
    state: { kind: "enum", values: BADGE_STATES },
    badge_template_id: { kind: "id" },
    recipient_email: { kind: "email" },
    /** Badges sent to any of these addresses. */
    recipient_email_all: { kind: "email", list: true },
    /** The recipient's name or e-mail, or the template's name. */
    query: { kind: "search" },
    public: { kind: "boolean" },
    issuer_earner_id: { kind: "text" },
    issued_at: { kind: "date" },
    updated_at: { kind: "date" },
    /** Badges of a template with any of these reporting tags (any case); spelt as clients of such services send it. */
    "badge_templates[reporting_tags]": { kind: "text", list: true },
    /**
     * Badges issued on their owner's behalf by an authorized issuer (true), or by the owner itself
     * (false): for a grantor, those its issuers issued; for an issuer, those it issued for grantors.
     */
    on_behalf: { kind: "boolean" },
    /** Badges belonging to these organizations (an issuer's list holds its grantors' badges too). */
    organization_id: { kind: "id" },
    /** Badges issued on their owner's behalf by these organizations. */
    issued_by_organization_id: { kind: "id" },
  },
  sorts: ["issued_at", "created_at", "updated_at", "issued_to_last_name"],
  defaultSort: [{ key: "issued_at", desc: true }],
  ranges: {
    start_date: { key: "issued_at", bound: "start" },
    end_date: { key: "issued_at", bound: "end" },
  },
});
export type BadgeListQuery = ListQuery<keyof typeof BADGE_LIST.filters, (typeof BADGE_LIST.sorts)[number]>;

/** The badge template list's filters and sorts (newest first unless sorted). */
export const TEMPLATE_LIST = defineList({
  filters: {
    /** The name or the description. */
    query: { kind: "search" },
    name: { kind: "text" },
    state: { kind: "enum", values: TEMPLATE_STATES },
    public: { kind: "boolean" },
    /** The template has every listed skill. */
    skills: { kind: "text", list: true },
    /** The template has any of these reporting tags (any case). */
    reporting_tags: { kind: "text", list: true },
    created_at: { kind: "date" },
    updated_at: { kind: "date" },
  },
  sorts: ["name", "created_at", "updated_at", "badges_count"],
  defaultSort: [{ key: "created_at", desc: true }],
});
export type TemplateListQuery = ListQuery<keyof typeof TEMPLATE_LIST.filters, (typeof TEMPLATE_LIST.sorts)[number]>;
