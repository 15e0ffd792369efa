import { type Static, Type } from "typebox";
import type { AuditRecord } from "../audit/mod.ts";
import type { EventRecord } from "../events/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";
import type { Role } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";

/** What an organization endorses: one of another organization's badge templates, or that organization itself. */
export const ENDORSEMENT_TARGETS = ["badge_template", "organization"] as const;
export type EndorsementTarget = (typeof ENDORSEMENT_TARGETS)[number];

/**
 * An endorsement waits for the endorsed side (`pending`), which accepts or rejects it; the
 * endorser may withdraw it while it waits or once accepted. Only an accepted one is published.
 */
export const ENDORSEMENT_STATES = ["pending", "accepted", "rejected", "withdrawn"] as const;
export type EndorsementState = (typeof ENDORSEMENT_STATES)[number];

/** The states in which an endorsement still counts: an endorser has at most one of these per target. */
export const LIVE_STATES: readonly EndorsementState[] = ["pending", "accepted"];

export const COMMENT_MAX = 2000;

export interface EndorsementRecord {
  id: string;
  endorser_id: string;
  endorsed_id: string;
  target_kind: EndorsementTarget;
  target_id: string;
  comment: string;
  state: EndorsementState;
  created_at: Date;
  updated_at: Date;
  /** When the endorsed side accepted it: the credential's `validFrom`. */
  accepted_at: Date | null;
}

/** An endorsement with the names a page or a credential shows beside it. */
export interface EndorsementView extends EndorsementRecord {
  endorser_name: string;
  endorsed_name: string;
  /** The template's name, or the endorsed organization's; null for a template deleted since. */
  target_name: string | null;
}

/** Which side of its endorsements an organization lists. */
export type EndorsementSide = "given" | "received";

/** One transaction over endorsements and what each change writes with it: audit rows, events, mail. */
export interface EndorsementTx {
  /** The endorsement, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<EndorsementRecord | null>;
  /** Inserts it unless its endorser has a live one of the same target; false then. */
  insertIfNoneLive(record: EndorsementRecord): Promise<boolean>;
  update(record: EndorsementRecord): Promise<void>;
  /** The endorsement with its names, as this transaction sees it. */
  view(id: string): Promise<EndorsementView | null>;
  /** The first address of each member of the organization holding one of `roles`, oldest member first, at most `limit`. */
  memberAddresses(organizationId: string, roles: readonly Role[], limit: number): Promise<string[]>;
  appendAudit(entries: readonly AuditRecord[]): Promise<void>;
  appendEvents(events: EventRecord[]): Promise<void>;
  enqueueMail(mail: OutboxMail): Promise<void>;
}

/** What the endorsement use cases need besides the store: where the credentials and the console live. */
export interface EndorsementDeps {
  store: EndorsementStore;
  /** The OB 3.0 records' base (`<base>/obi/v3`), for an endorsement's credential address. */
  v3Base: string;
  /** The public origin of the pages, for the console link in the mail to the endorsed organization. */
  publicUrl: string;
  /** UUIDv7s, so the events sort by time. */
  newEventId: () => string;
}

export interface EndorsementStore {
  transaction<T>(work: (tx: EndorsementTx) => Promise<T>): Promise<T>;
  get(id: string): Promise<EndorsementView | null>;
  list(
    organizationId: string,
    side: EndorsementSide,
    page: PageRequest,
  ): Promise<{ items: EndorsementView[]; total: number }>;
  /** The accepted endorsements of a target, oldest first. */
  accepted(kind: EndorsementTarget, targetId: string): Promise<EndorsementView[]>;
  /** The organization a target belongs to (a template's owner, an organization itself); null when unknown or deleted. */
  targetOwner(kind: EndorsementTarget, targetId: string): Promise<string | null>;
}

export const CreateEndorsementInput = Type.Object(
  {
    target_kind: Type.Union([Type.Literal("badge_template"), Type.Literal("organization")], {
      description: "`badge_template` or `organization`",
    }),
    target_id: Type.String({ format: "uuid", description: "The badge template's or the organization's id" }),
    comment: Type.String({ minLength: 1, maxLength: COMMENT_MAX, description: "What the endorser says of it" }),
  },
  { additionalProperties: false },
);
export type CreateEndorsementInput = Static<typeof CreateEndorsementInput>;
