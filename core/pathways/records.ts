import { type Static, Type } from "typebox";
import type { AuditRecord } from "../audit/mod.ts";
import type { IssuerAuthorizationRecord } from "../issuer_authorizations/mod.ts";
import { defineList, type ListQuery } from "../listing/mod.ts";
import type { PageRequest } from "../shared/mod.ts";

/**
 * A pathway is a goal of milestones: each a set of badge templates of which the earner must hold
 * `required`, the organization's own or those of an organization it issues for (a grantor). A
 * badge counts toward the pathways of the organization whose it is and of the one that issued it
 * on its behalf (`countsFor`), so a grantor's badges count only where the pathway's organization
 * issued them: its earners' progress never shows what it could not see in its own badge list. `draft` → `published` (earners' progress is kept from then on) →
 * `archived` (kept, read-only). A published pathway's milestones (and its completion template)
 * change only by a new version: the same pathway, `version` + 1, still published; the earners'
 * progress is their held templates, so they keep what they had against the new milestones.
 */
export const PATHWAY_STATES = ["draft", "published", "archived"] as const;
export type PathwayState = (typeof PATHWAY_STATES)[number];

export const MILESTONES_MAX = 20;
export const MILESTONE_TEMPLATES_MAX = 50;
export const PATHWAY_NAME_MAX = 200;
export const PATHWAY_DESCRIPTION_MAX = 2000;

export interface Milestone {
  name: string;
  /** Lower-case template ids, each once. */
  badge_template_ids: string[];
  /** How many of them the earner must hold: 1 to their number ("N of M"; all when equal). */
  required: number;
}

export interface PathwayRecord {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  state: PathwayState;
  /** 1 while a draft and at its first publication; + 1 each time a published pathway's milestones change. */
  version: number;
  /** An active template of the organization: the badge an earner completing every milestone receives. */
  completion_badge_template_id: string;
  milestones: Milestone[];
  /**
   * A setting: when an earner's next milestone not done changes (a badge accepted), its templates
   * they do not hold are recommended to them (core/recommendations' one per template and person).
   */
  recommend_next: boolean;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

/**
 * One earner's progress on a published pathway: the templates of the pathway they hold (badges
 * accepted, neither pending nor revoked nor replaced), kept as their badges change. `completed_at`
 * is set once, when every milestone is first done; a completion is never taken back.
 */
export interface PathwayProgressRecord {
  pathway_id: string;
  recipient_email: string;
  recipient_email_key: string;
  held_template_ids: string[];
  completed_at: Date | null;
  /** The completion badge issued for it; null until it is. */
  completion_badge_id: string | null;
  updated_at: Date;
}

export const PROGRESS_STATES = ["in_progress", "completed"] as const;

/** The pathways' list: filtered by state, newest first. */
export const PATHWAY_LIST = defineList({
  filters: { state: { kind: "enum", values: PATHWAY_STATES } },
  sorts: ["created_at"],
  defaultSort: [{ key: "created_at", desc: true }],
});
export type PathwayListQuery = ListQuery<keyof typeof PATHWAY_LIST.filters, "created_at">;

/** A pathway's earners: by address (`recipient_email=` reads one recipient's) and state, latest change first. */
export const EARNER_LIST = defineList({
  filters: {
    recipient_email: { kind: "email", list: true },
    state: { kind: "enum", values: PROGRESS_STATES },
  },
  sorts: ["updated_at"],
  defaultSort: [{ key: "updated_at", desc: true }],
});
export type EarnerListQuery = ListQuery<keyof typeof EARNER_LIST.filters, "updated_at">;

/** A held template's holder, as the badges say it at publication. */
export interface HeldRow {
  recipient_email: string;
  recipient_email_key: string;
  held_template_ids: string[];
}

/** A template a pathway names, as its pages show it: its name and picture (stored image or address). */
export interface PathwayTemplateRef {
  id: string;
  name: string;
  image: string | null;
  image_url: string | null;
}

/** A pathway as its store reads it for the pages: its organization's name and the templates it names. */
export interface PathwayShown {
  pathway: PathwayRecord;
  organization_name: string;
  /** The milestones' templates and the completion template (any state). */
  templates: PathwayTemplateRef[];
}

/** A published pathway on which one of an account's confirmed addresses has a progress row. */
export interface AccountPathwayRow extends PathwayShown {
  /** The templates held, over all the account's addresses. */
  held_template_ids: string[];
  /** The first completion of any of its addresses; null while none. */
  completed_at: Date | null;
}

/** One transaction changing a pathway. */
export interface PathwayTx {
  /** The pathway, locked until the transaction ends; null when the organization has none of that id. */
  lock(organizationId: string, id: string): Promise<PathwayRecord | null>;
  insert(record: PathwayRecord): Promise<void>;
  update(record: PathwayRecord): Promise<void>;
  delete(id: string): Promise<void>;
  /**
   * Adds, to each earner's progress on the pathway, the templates of `templateIds` they hold now
   * (accepted badges that count for the organization: `countsFor`), making the rows that are
   * missing; returns the rows it touched.
   */
  seedProgress(pathwayId: string, organizationId: string, templateIds: readonly string[], at: Date): Promise<HeldRow[]>;
  appendAudit(entries: readonly AuditRecord[]): Promise<void>;
}

/** What a pathway's check needs of the templates it names. */
export interface PathwayTemplateFacts {
  /** The templates among those named that are the organization's or its grantors', with their state and owner. */
  templates: ReadonlyMap<string, { state: string; organization_id: string }>;
  /** The organization's authorizations as an issuer (which of its grantors' templates it may name). */
  grants: readonly Pick<IssuerAuthorizationRecord, "grantor_id" | "state" | "all_templates" | "badge_template_ids">[];
}

export interface PathwayStore {
  transaction<T>(work: (tx: PathwayTx) => Promise<T>): Promise<T>;
  templates(organizationId: string, ids: readonly string[]): Promise<PathwayTemplateFacts>;
  list(
    organizationId: string,
    query: PathwayListQuery,
    page: PageRequest,
  ): Promise<{ items: PathwayRecord[]; total: number }>;
  get(organizationId: string, id: string): Promise<PathwayRecord | null>;
  earners(
    pathwayId: string,
    query: EarnerListQuery,
    page: PageRequest,
  ): Promise<{ items: PathwayProgressRecord[]; total: number }>;
  /** A pathway of any organization and state, with what its pages show; null when there is none. */
  shown(id: string): Promise<PathwayShown | null>;
  /** The published pathways with a progress row of any of the account's confirmed addresses. */
  forAccount(userId: string): Promise<AccountPathwayRow[]>;
}

const Uuid = Type.String({ format: "uuid" });
const Name = Type.String({ minLength: 1, maxLength: PATHWAY_NAME_MAX });

export const MilestoneInput = Type.Object(
  {
    name: Name,
    badge_template_ids: Type.Array(Uuid, { minItems: 1, maxItems: MILESTONE_TEMPLATES_MAX }),
    /** 1 to the number of templates; absent, all of them. */
    required: Type.Optional(Type.Integer({ minimum: 1, maximum: MILESTONE_TEMPLATES_MAX })),
  },
  { additionalProperties: false },
);
export type MilestoneInput = Static<typeof MilestoneInput>;

const RecommendNext = Type.Boolean({
  description:
    "Recommend an earner's next milestone's templates they do not hold when it becomes their next (default false; a setting, no new version)",
});

const Milestones = Type.Array(MilestoneInput, { minItems: 1, maxItems: MILESTONES_MAX });

export const CreatePathwayInput = Type.Object(
  {
    name: Name,
    description: Type.Optional(Type.String({ maxLength: PATHWAY_DESCRIPTION_MAX })),
    completion_badge_template_id: Uuid,
    milestones: Milestones,
    recommend_next: Type.Optional(RecommendNext),
  },
  { additionalProperties: false },
);
export type CreatePathwayInput = Static<typeof CreatePathwayInput>;

export const UpdatePathwayInput = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.String({ maxLength: PATHWAY_DESCRIPTION_MAX })),
    completion_badge_template_id: Type.Optional(Uuid),
    milestones: Type.Optional(Milestones),
    recommend_next: Type.Optional(RecommendNext),
  },
  {
    additionalProperties: false,
    description:
      "A draft changes in place; a published pathway's name and description change in place, and new milestones or a new completion template make its next version",
  },
);
export type UpdatePathwayInput = Static<typeof UpdatePathwayInput>;
