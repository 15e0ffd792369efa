import { type Static, Type } from "typebox";
import type { AuditRecord } from "../audit/mod.ts";
import { defineList, type ListQuery } from "../listing/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";
import type { PageRequest } from "../shared/mod.ts";

/**
 * A recommendation is `open` until the person earns the template (`fulfilled`: a live badge of it
 * issued to the recommended address) or says no (`dismissed`). Fulfilment is a fact about badges,
 * read with the recommendation, never a flag someone must remember to set: a badge revoked later
 * makes it open again. Earning wins over a dismissal.
 */
export const RECOMMENDATION_STATES = ["open", "fulfilled", "dismissed"] as const;
export type RecommendationState = (typeof RECOMMENDATION_STATES)[number];

/** At most this many recommendations in one request. */
export const BATCH_MAX = 1000;
export const MESSAGE_MAX = 1000;

export interface RecommendationRecord {
  id: string;
  organization_id: string;
  badge_template_id: string;
  recipient_email: string;
  /** The normalized address: what badges and accounts are matched on. */
  recipient_email_key: string;
  /** The employee record it was made for, when it was made for one. */
  employee_id: string | null;
  /** The organization's words to the person, shown as written. */
  message: string | null;
  created_at: Date;
  dismissed_at: Date | null;
  /** When the mail telling the person went to the outbox; null when the mail budget was spent. */
  notified_at: Date | null;
}

/** A recommendation as read: with what it recommends, who recommends it and the facts its state comes from. */
export interface RecommendationView extends RecommendationRecord {
  organization_name: string;
  badge_template_name: string;
  badge_template_description: string;
  /** The template's stored image (its name), or null; its image address otherwise. */
  badge_template_image: string | null;
  badge_template_image_url: string | null;
  badge_template_criteria_url: string | null;
  /** The first issue of a live badge of the template to the address; null while none. */
  fulfilled_at: Date | null;
}

/** The state of a recommendation from its facts (see `RECOMMENDATION_STATES`). */
export const recommendationState = (
  r: Pick<RecommendationView, "fulfilled_at" | "dismissed_at">,
): RecommendationState => (r.fulfilled_at ? "fulfilled" : r.dismissed_at ? "dismissed" : "open");

/** The list's filters; newest first. */
export const RECOMMENDATION_LIST = defineList({
  filters: {
    badge_template_id: { kind: "id" },
    recipient_email: { kind: "email", list: true },
    employee_id: { kind: "id" },
    state: { kind: "enum", values: RECOMMENDATION_STATES },
  },
  sorts: ["created_at"],
  defaultSort: [{ key: "created_at", desc: true }],
});
export type RecommendationListQuery = ListQuery<keyof typeof RECOMMENDATION_LIST.filters, "created_at">;

/** What the organization's side of a recommendation needs resolved before it is written. */
export interface RecommendationTargets {
  /** The organization's templates among those named, with their state. */
  templates: Map<
    string,
    { state: string; name: string; description: string; image: string | null; image_url: string | null }
  >;
  /** The organization's employee records among those named, with their address. */
  employees: Map<string, { email: string; first_name: string }>;
  organization_name: string;
}

/** One transaction writing recommendations, their mail and their audit rows. */
export interface RecommendationTx {
  /** Inserts those whose (organization, template, address) has none yet; returns the ids it inserted. */
  insertNew(records: readonly RecommendationRecord[]): Promise<Set<string>>;
  enqueueMails(mails: readonly OutboxMail[]): Promise<void>;
  appendAudit(entries: readonly AuditRecord[]): Promise<void>;
}

export interface RecommendationStore {
  transaction<T>(work: (tx: RecommendationTx) => Promise<T>): Promise<T>;
  targets(
    organizationId: string,
    templateIds: readonly string[],
    employeeIds: readonly string[],
  ): Promise<RecommendationTargets>;
  list(
    organizationId: string,
    query: RecommendationListQuery,
    page: PageRequest,
  ): Promise<{ items: RecommendationView[]; total: number }>;
  get(organizationId: string, id: string): Promise<RecommendationView | null>;
  /** Deletes it with its audit row; false when the organization has none of that id. */
  delete(organizationId: string, id: string, audit: AuditRecord): Promise<boolean>;
  /** The open recommendations to any of an account's confirmed addresses, newest first. */
  forAccount(userId: string): Promise<RecommendationView[]>;
  /** Marks it dismissed when it is to one of the account's confirmed addresses; false otherwise. */
  dismiss(userId: string, id: string, at: Date): Promise<boolean>;
}

const Uuid = Type.String({ format: "uuid" });

const oneFields = {
  badge_template_id: Uuid,
  recipient_email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
  employee_id: Type.Optional(Uuid),
  message: Type.Optional(Type.Union([Type.String({ maxLength: MESSAGE_MAX }), Type.Null()])),
};

/** One recommendation: a template of the organization, and an address or one of its employee records. */
export const RecommendationInput = Type.Object(oneFields, {
  additionalProperties: false,
  description: "Give `recipient_email` or `employee_id` (the employee record's address is used)",
});
export type RecommendationInput = Static<typeof RecommendationInput>;

/** One, or a batch of up to 1,000 written together or not at all. */
export const CreateRecommendationsInput = Type.Union([
  RecommendationInput,
  Type.Object(
    { recommendations: Type.Array(RecommendationInput, { minItems: 1, maxItems: BATCH_MAX }) },
    { additionalProperties: false },
  ),
]);
export type CreateRecommendationsInput = Static<typeof CreateRecommendationsInput>;
