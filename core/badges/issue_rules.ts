import { type CoreError, type FieldError, validationFailed } from "../errors/mod.ts";
import type { BadgeIssueBody, BadgeReplaceBody } from "./input_schemas.ts";
import { parseIssuedAt } from "./issued_at.ts";
import type { BadgeRecord, BadgeTemplateRecord, UrlEvidence } from "./records.ts";

export const DUPLICATE_BADGE_MESSAGE = "User already has this badge";

/** The refusal of a second live badge of an exclusive template: its message is the one clients match. */
export const duplicateBadge = (templateId: string, field: string): CoreError =>
  validationFailed(DUPLICATE_BADGE_MESSAGE, [{ field, message: DUPLICATE_BADGE_MESSAGE }], {
    name: "badge_duplicate",
    badge_template_id: templateId,
  });

/** Why a request naming a template the organization does not have is refused, beside its field. */
export const UNKNOWN_TEMPLATE_MESSAGE = "no badge template of this organization has this id";

/** The key under which recipients are compared (duplicate rule, account linking, OBI hash). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * Whether a template may issue to this recipient now. `recipientHasLiveBadge`: the store found a
 * pending or accepted badge (`LIVE_BADGE_STATES`) of this template for the normalized e-mail,
 * leaving out the badge being replaced when this is a replacement. `prefix` places field errors
 * inside a batch (`badges.3`).
 */
export const checkIssue = (
  template: Pick<BadgeTemplateRecord, "id" | "state" | "allow_duplicate_badges">,
  recipientHasLiveBadge: boolean,
  prefix = "",
): void => {
  const at = (f: string) => (prefix === "" ? f : `${prefix}.${f}`);
  if (template.state !== "active") {
    throw validationFailed(
      `The badge template is ${template.state}; only an active template can issue badges`,
      [{ field: at("badge_template_id"), message: `badge template is ${template.state}, not active` }],
      { name: "badge_template_not_active", badge_template_id: template.id, state: template.state },
    );
  }
  if (recipientHasLiveBadge && !template.allow_duplicate_badges) {
    throw duplicateBadge(template.id, at("recipient_email"));
  }
};

/** An issue request with its timestamps parsed and its text trimmed, ready to become a record. */
export interface NormalizedIssue {
  badge_template_id: string;
  issued_at: Date;
  expires_at: Date | null;
  issued_to_first_name: string;
  issued_to_middle_name: string | null;
  issued_to_last_name: string;
  recipient_email: string;
  evidence: UrlEvidence[];
  issuer_earner_id: string | null;
  locale: string | null;
  suppress_badge_notification_email: boolean;
  notification_message: string | null;
}

const blankToNull = (s: string | null | undefined): string | null => {
  const t = s?.trim() ?? "";
  return t === "" ? null : t;
};

/**
 * The checks a schema cannot make: timestamps (any offset), expiry after issue, names that are
 * only blanks. `prefix` places field errors inside a batch (`badges.3`).
 */
export const normalizeIssue = (input: BadgeIssueBody, prefix = ""): NormalizedIssue => {
  const at = (f: string) => (prefix === "" ? f : `${prefix}.${f}`);
  const errors: FieldError[] = [];
  const issued = parseIssuedAt(input.issued_at, at("issued_at"));
  if (typeof issued !== "number") errors.push(issued);
  let expires: number | null = null;
  if (input.expires_at != null) {
    const e = parseIssuedAt(input.expires_at, at("expires_at"));
    if (typeof e !== "number") errors.push(e);
    else expires = e;
  }
  if (typeof issued === "number" && expires !== null && expires <= issued) {
    errors.push({ field: at("expires_at"), message: "must be later than issued_at" });
  }
  const first = input.issued_to_first_name.trim();
  const last = input.issued_to_last_name.trim();
  if (first === "") errors.push({ field: at("issued_to_first_name"), message: "must not be blank" });
  if (last === "") errors.push({ field: at("issued_to_last_name"), message: "must not be blank" });
  if (errors.length > 0 || typeof issued !== "number") throw validationFailed("Validation failed", errors);
  return {
    badge_template_id: input.badge_template_id.toLowerCase(),
    issued_at: new Date(issued),
    expires_at: expires === null ? null : new Date(expires),
    issued_to_first_name: first,
    issued_to_middle_name: blankToNull(input.issued_to_middle_name),
    issued_to_last_name: last,
    recipient_email: input.recipient_email.trim(),
    evidence: (input.evidence ?? []).map((e) => ({
      type: "UrlEvidence",
      name: e.name.trim(),
      description: blankToNull(e.description),
      value: e.value,
    })),
    issuer_earner_id: blankToNull(input.issuer_earner_id),
    locale: blankToNull(input.locale),
    suppress_badge_notification_email: input.suppress_badge_notification_email ?? false,
    notification_message: blankToNull(input.notification_message),
  };
};

/** How far ahead of the server clock `issued_at` may be: client clocks drift, awards are not post-dated. */
export const ISSUED_AT_FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * A badge cannot be issued in the future: OB 2.0 verifiers reject an `issuedOn` later than their
 * clock, so such a badge would fail verification until that date.
 */
export const checkIssuedAtNotFuture = (n: Pick<NormalizedIssue, "issued_at">, now: Date, prefix = ""): void => {
  if (n.issued_at.getTime() > now.getTime() + ISSUED_AT_FUTURE_TOLERANCE_MS) {
    throw validationFailed("Validation failed", [
      { field: prefix === "" ? "issued_at" : `${prefix}.issued_at`, message: "must not be in the future" },
    ]);
  }
};

/** A replace body completed from the badge it replaces: same template and recipient unless given. */
export const replacementIssue = (old: BadgeRecord, input: BadgeReplaceBody): BadgeIssueBody => ({
  ...input,
  badge_template_id: input.badge_template_id ?? old.badge_template_id,
  issued_to_first_name: input.issued_to_first_name ?? old.issued_to_first_name,
  issued_to_middle_name:
    input.issued_to_middle_name === undefined ? old.issued_to_middle_name : input.issued_to_middle_name,
  issued_to_last_name: input.issued_to_last_name ?? old.issued_to_last_name,
  recipient_email: input.recipient_email ?? old.recipient_email,
});

export interface NewBadgeContext {
  id: string;
  organization_id: string;
  now: Date;
  /** Random per badge, from the adapter (core has no randomness). */
  recipient_salt: string;
  /** The earner account owning the recipient e-mail, if one exists. */
  user_id: string | null;
  /** The recipient's subject identifier (`recipientSubjectId`). */
  subject_id: string;
  replaces_badge_id?: string | null;
  /** Keyed digest of the notification link's token, when a notification is sent. */
  accept_token_digest?: string | null;
  /** The authorized issuer issuing on `organization_id`'s behalf; absent: the owner itself. */
  issued_by_organization_id?: string | null;
}

/** The row of a freshly issued badge: pending, public, its own salt. */
export const newBadgeRecord = (n: NormalizedIssue, ctx: NewBadgeContext): BadgeRecord => ({
  id: ctx.id,
  organization_id: ctx.organization_id,
  issued_by_organization_id: ctx.issued_by_organization_id ?? null,
  badge_template_id: n.badge_template_id,
  state: "pending",
  public: true,
  issued_to_first_name: n.issued_to_first_name,
  issued_to_middle_name: n.issued_to_middle_name,
  issued_to_last_name: n.issued_to_last_name,
  recipient_email: n.recipient_email,
  issued_at: n.issued_at,
  expires_at: n.expires_at,
  evidence: n.evidence,
  issuer_earner_id: n.issuer_earner_id,
  locale: n.locale,
  suppress_badge_notification_email: n.suppress_badge_notification_email,
  notification_message: n.notification_message,
  revocation_reason: null,
  replaces_badge_id: ctx.replaces_badge_id ?? null,
  replacement_badge_id: null,
  user_id: ctx.user_id,
  recipient_salt: ctx.recipient_salt,
  subject_id: ctx.subject_id,
  accept_token_digest: ctx.accept_token_digest ?? null,
  state_updated_at: ctx.now,
  created_at: ctx.now,
  updated_at: ctx.now,
});

/** The subject identifiers a recipient already has, and a new one for a recipient that has none. */
export interface RecipientSubjects {
  /** The subject of the earner account owning the address. */
  account: string | null;
  /** The subject of the earliest badge sent to the address. */
  address: string | null;
  /** A new random UUID. */
  fresh: string;
}

/**
 * Who an OB 3.0 credential names as its subject: the earner's account, so every badge of one
 * earner names the same subject; else the address's earlier badges, so an earner without an
 * account yet is one subject too (the account later made for the address takes that subject
 * over); else a new one.
 */
export const recipientSubjectId = (subjects: RecipientSubjects): string =>
  subjects.account ?? subjects.address ?? subjects.fresh;
