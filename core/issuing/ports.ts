import type { AuditRecord } from "../audit/mod.ts";
import type {
  BadgeListQuery,
  BadgeRecord,
  BadgeTemplateData,
  BadgeTemplateRecord,
  OrganizationRef,
  RecipientSubjects,
  TemplateListQuery,
} from "../badges/mod.ts";
import type { Page } from "../credentials/mod.ts";
import type { EventRecord } from "../events/mod.ts";
import type { IssuerAuthorizationRecord } from "../issuer_authorizations/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";
import type { PathwayRecord } from "../pathways/mod.ts";
import type { RecommendationRecord } from "../recommendations/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type { ConnectionTx } from "../workforce/mod.ts";
import type { UserRecord } from "./earners.ts";

/** A badge with what its shapes need: its template and the organization that issued it. */
export interface BadgeView {
  badge: BadgeRecord;
  template: BadgeTemplateData;
  issuer: OrganizationRef;
  /** The organization that issued it on `issuer`'s behalf (an authorized issuer); absent when `issuer` did. */
  authorizedIssuer?: OrganizationRef;
  /** The badge's entry in its organization's status lists, where the store read it. */
  statusIndex?: number;
  /** The achievement's accepted endorsements, signed, where the reader added them. */
  endorsementJwt?: readonly string[];
}

/** A template with its owner (the OBI issuer and the `owner` of the REST shape). */
export interface TemplateView {
  template: BadgeTemplateRecord;
  owner: OrganizationRef;
}

/** The earner account that owns a recipient e-mail, and whether that address is confirmed. */
export interface Earner {
  user_id: string;
  email_confirmed: boolean;
}

/** What issuing needs to know, read in the issuing transaction. */
export interface IssueLookup {
  /** Null when no template of that id belongs to the organization. */
  template: BadgeTemplateData | null;
  issuer: OrganizationRef | null;
  earner: Earner | null;
  /** A pending or accepted badge of this template exists for this recipient (`LIVE_BADGE_STATES`). */
  hasLiveBadge: boolean;
  /** The recipient's subject identifiers, for its new badge's (`recipientSubjectId`). */
  subjects: RecipientSubjects;
}

/**
 * What issuing needs: a read, then one atomic write of the badge with its events. A store offers
 * both outside a transaction (one issue needs no more: the write is a single statement, and the
 * duplicate rule is enforced by the database), a transaction offers them inside a larger change
 * (a replacement).
 */
export interface IssueWrites {
  issueLookup(organizationId: string, templateId: string, recipientKey: string): Promise<IssueLookup>;
  /**
   * Writes the badge and `events` together. `exclusive`: the template refused duplicates when this
   * badge was issued; the store then guarantees at most one live exclusive badge per template and
   * recipient, even under races, and reports a second one as `duplicate` (nothing is written);
   * `template_gone` when the template was deleted meanwhile. Inside a transaction, either answer
   * means the transaction must be abandoned. `mails` go to the outbox with the badge, only if it
   * is written.
   */
  insertBadge(
    badge: BadgeRecord,
    recipientKey: string,
    exclusive: boolean,
    events: EventRecord[],
    mails?: OutboxMail[],
  ): Promise<"inserted" | "duplicate" | "template_gone">;
  /**
   * The accepted authorizations of `issuerId` by the owner of `templateId`, another organization,
   * each held against being ended until the transaction ends (none when no other organization owns
   * such a template), with the issuer's own profile. Meant inside `inTransaction`.
   */
  grantsFor(
    issuerId: string,
    templateId: string,
  ): Promise<{ grants: IssuerAuthorizationRecord[]; issuer: OrganizationRef | null }>;
  /** Runs `work` in one transaction: this one, inside a transaction; a new one outside. */
  inTransaction<T>(work: (tx: IssueWrites) => Promise<T>): Promise<T>;
}

/** A badge's lifecycle inside a transaction: read it locked, then change or remove it. */
export interface BadgeChanges {
  /** `organizationId` null: any organization (earner actions go by badge id alone). */
  lockBadge(organizationId: string | null, id: string): Promise<BadgeView | null>;
  updateBadge(badge: BadgeRecord): Promise<void>;
  /** Replaces the keyed digest of the badge's notification link token. */
  setAcceptToken(badgeId: string, digest: string): Promise<void>;
  /** Queues mails, sent once the transaction commits. */
  enqueueMails(mails: OutboxMail[]): Promise<void>;
  deleteBadge(id: string): Promise<void>;
}

/** A template's lifecycle inside a transaction. */
export interface TemplateChanges {
  insertTemplate(template: BadgeTemplateRecord): Promise<"inserted" | "slug_taken">;
  lockTemplate(organizationId: string, id: string): Promise<TemplateView | null>;
  updateTemplate(template: BadgeTemplateRecord): Promise<"updated" | "slug_taken">;
  deleteTemplate(id: string): Promise<void>;
}

/** A new earner account and the badges already sent to its addresses. */
export interface EarnerChanges {
  insertUser(user: UserRecord, emailKeys: string[]): Promise<"inserted" | "email_taken">;
  /** Links badges sent to these e-mails (and not linked yet) to the user; returns how many. */
  linkBadges(userId: string, emailKeys: string[], now: Date): Promise<number>;
}

/** A published pathway whose progress a badge change touched, as the change left it (its row locked). */
export interface PathwayStep {
  pathway: PathwayRecord;
  held_template_ids: string[];
  completed_at: Date | null;
}

/** Whom a completion badge is issued to: the names and address of one of their accepted badges. */
export interface CompletionHolder {
  recipient_email: string;
  issued_to_first_name: string;
  issued_to_middle_name: string | null;
  issued_to_last_name: string;
  locale: string | null;
}

/** An earner's progress on a published pathway, not completed, with whom its completion badge would name. */
export interface UncompletedStep extends PathwayStep {
  recipient_key: string;
  holder: CompletionHolder;
}

/**
 * Pathways' progress, kept as badges change (set-based, in the badge's transaction): a template
 * held is added to, or released from, the recipient's progress on every published pathway naming it.
 */
export interface PathwayProgressChanges {
  /** On the pathways of the organizations in `countsFor` (core/pathways' `countsFor` of the badge). */
  holdTemplate(
    templateId: string,
    recipientKey: string,
    recipientEmail: string,
    at: Date,
    countsFor: readonly string[],
  ): Promise<PathwayStep[]>;
  /**
   * On the pathways of the organizations in `countsFor`, each only when no other accepted badge of
   * the template that counts for it is the recipient's.
   */
  releaseTemplate(templateId: string, recipientKey: string, at: Date, countsFor: readonly string[]): Promise<void>;
  /** The pathway's uncompleted progress rows, locked (a published pathway's, of earners holding one of its templates). */
  uncompletedProgress(pathwayId: string): Promise<UncompletedStep[]>;
  /**
   * Recommendations made by a pathway (`recommend_next`): written where none of the template and
   * address is yet (one per template and person, a dismissed one included) and the template is
   * the organization's and active; others skipped silently. No mail: see pathway_progress.ts.
   */
  recommendTemplates(records: readonly RecommendationRecord[]): Promise<void>;
  /** Records the pathway completed (with its badge, or null when it could not be issued); false when it was already. */
  recordCompletion(pathwayId: string, recipientKey: string, badgeId: string | null, at: Date): Promise<boolean>;
}

/** What every change leaves behind: its events (for webhooks and feeds) and its audit entries. */
export interface ChangeRecords {
  appendEvents(events: EventRecord[]): Promise<void>;
  appendAudit(entries: AuditRecord[]): Promise<void>;
}

/** Who follows a badge's holder: the employers connected to them, and their connect grants. */
export interface ConnectedHolders {
  /** The employers connected to the badge's holder follow its changes in this transaction. */
  employment: ConnectionTx;
  /** Organizations holding an active connect grant from any of these earners. */
  connectedOrganizations(userIds: string[]): Promise<string[]>;
  /**
   * The template's badges whose holder has an active connect grant, each with the organizations
   * holding the holder's grants.
   */
  connectedHolders(
    templateId: string,
  ): Promise<Array<{ badge: BadgeRecord; organizations: string[]; authorizedIssuer?: OrganizationRef }>>;
}

/** A change of one badge: the badge, what it records, and who follows its holder. */
export type BadgeChangeTx = BadgeChanges & ChangeRecords & ConnectedHolders & PathwayProgressChanges & IssueWrites;

/** A change of one template: the template, what it records, and the holders who follow it. */
export type TemplateChangeTx = TemplateChanges & ChangeRecords & Pick<ConnectedHolders, "connectedHolders">;

/**
 * One database transaction. Everything written through it, events included, commits together
 * or not at all; throwing from the unit of work rolls it back. `lock*` reads take a row lock, so a
 * read-decide-write sequence cannot interleave with another on the same row.
 * It offers every port above because the store opens one kind of transaction for all of them; each
 * use case names the ports it uses (`BadgeChangeTx`, `TemplateChangeTx`, `EarnerChanges`).
 */
export interface BadgeTx
  extends IssueWrites,
    BadgeChanges,
    TemplateChanges,
    EarnerChanges,
    ChangeRecords,
    ConnectedHolders,
    PathwayProgressChanges {}

/** Templates as the API, the console and the hosted badge class read them. */
export interface TemplateReads {
  listTemplates(organizationId: string, query: TemplateListQuery, page: PageRequest): Promise<Page<TemplateView>>;
  /** `organizationId` null: any organization (the hosted badge class). */
  getTemplate(organizationId: string | null, id: string): Promise<TemplateView | null>;
}

/** Badges as the API, the console and the hosted assertion read them. */
export interface BadgeReads {
  listBadges(organizationId: string, query: BadgeListQuery, page: PageRequest): Promise<Page<BadgeView>>;
  /**
   * Up to `limit` badges matching the filters with ids above `afterId` (null: from the first), in
   * id order; the cost of a page must not grow with how many came before it.
   */
  badgeFeed(
    organizationId: string,
    query: Pick<BadgeListQuery, "filters">,
    afterId: string | null,
    limit: number,
  ): Promise<BadgeView[]>;
  /** `organizationId` null: any organization (the hosted assertion). */
  getBadge(organizationId: string | null, id: string): Promise<BadgeView | null>;
}

/**
 * Badges, templates and earners, read outside a transaction or changed inside one. It combines
 * the read ports and issuing's writes because one store serves them on one database; a use case
 * takes the part it needs (`Pick<IssuingDeps, "store">` reads, `issueWith` takes `IssueWrites`).
 */
export interface BadgeStore extends IssueWrites, TemplateReads, BadgeReads {
  transaction<T>(work: (tx: BadgeTx) => Promise<T>): Promise<T>;
  getUser(id: string): Promise<UserRecord | null>;
  /** Appends events in a transaction of their own (a notification, recorded once it went out). */
  appendEvents(events: EventRecord[]): Promise<void>;
}
