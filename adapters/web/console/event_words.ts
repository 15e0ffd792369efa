import type { EventRecord, EventType } from "../../../core/events/mod.ts";
import type { MemberAction } from "../../../core/members/mod.ts";

/**
 * Each event kind as a person reads it on the console. The kind's code stays what integrators
 * see (the events feed, webhooks); typed over every kind, so a new kind fails the typecheck until
 * it has its words here.
 */
export const EVENT_WORDS = {
  "badge.created": "A badge was issued",
  "badge.deleted": "A badge was deleted",
  "badge.privacy.changed": "A badge was made public or private by its earner",
  "badge.state.changed": "A badge changed state",
  "badge_template.created": "A template was created",
  "badge_template.changed": "A template was changed",
  "badge_template.deleted": "A template was deleted",
  "pending_badge_notification.sent": "A badge mail was sent to its earner",
  "pending_badge_notification.no_user.sent": "A badge mail was sent to someone without an account yet",
  "pending_badge_notification.unconfirmed_email.sent": "A badge mail was sent to an address not yet confirmed",
  "user.account_merged": "An earner merged two accounts",
  "user.connect_access.removed": "An earner ended a platform's access",
  "user.public_badges.changed": "An earner's public badges changed",
  "user.public_badges.added": "An earner made badges public",
  "user.public_badges.removed": "An earner made badges private",
  "employment.badges.added": "An employee received a badge",
  "employment.badges.removed": "An employee's badge was removed",
  "employment.badges.state_changed": "An employee's badge changed state",
  "employment.badges.privacy_changed": "An employee's badge was made public or private",
  "employment.external_badges.added": "An employee added a badge from elsewhere",
  "employment.external_badges.removed": "An employee removed a badge from elsewhere",
  "employment.external_badges.verification_status_changed": "A badge from elsewhere was verified again",
  "employment.created": "An employee was added",
  "employment.updated": "An employee was changed",
  "employment.deleted": "An employee was removed",
  "employment.connection.pending": "An employee was asked to connect their account",
  "employment.connection.accepted": "An employee connected their account",
  "employment.connection.rejected": "An employee declined to connect their account",
  "employment.user_account.associated": "An employee's account was linked",
  "employment.user_account.disassociated": "An employee's account was unlinked",
  "endorsement.created": "An endorsement was given",
  "endorsement.state.changed": "An endorsement changed state",
} as const satisfies Record<EventType, string>;

const STATE_WORDS: Record<string, string> = {
  pending: "pending",
  accepted: "accepted",
  rejected: "rejected",
  revoked: "revoked",
  withdrawn: "withdrawn",
};

/** What happened, in words: the kind's sentence, a state change with the state it reached. */
export const eventWords = (e: Pick<EventRecord, "event_type" | "detail">): string => {
  const words = (EVENT_WORDS as Record<string, string>)[e.event_type] ?? `Event ${e.event_type}`;
  const state = (e.detail as { badge?: { state?: unknown } } | null)?.badge?.state;
  if (e.event_type === "badge.state.changed" && typeof state === "string")
    return `A badge was ${STATE_WORDS[state] ?? state}`;
  const endorsement = (e.detail as { endorsement?: { state?: unknown } } | null)?.endorsement?.state;
  if (e.event_type === "endorsement.state.changed" && typeof endorsement === "string")
    return `An endorsement was ${STATE_WORDS[endorsement] ?? endorsement}`;
  return words;
};

const idOf = (value: unknown): string | null => {
  const id = (value as { id?: unknown } | undefined)?.id;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
};

/**
 * The console page of what the event is about, when it still has one, with the link's words and
 * the action its route requires (a link the member's role cannot open is left out by the caller).
 */
export const eventLink = (
  e: Pick<EventRecord, "event_type" | "detail">,
  organizationId: string,
): { href: string; label: string; action: MemberAction } | null => {
  const detail = (e.detail ?? {}) as Record<string, unknown>;
  const base = `/console/${organizationId}`;
  if (e.event_type === "badge.deleted" || e.event_type === "badge_template.deleted") return null;
  const badge = idOf(detail.badge);
  if (badge && !e.event_type.startsWith("employment."))
    return { href: `${base}/badges/${badge}`, label: "See the badge", action: "badges.read" };
  const template = idOf(detail.badge_template);
  if (template) return { href: `${base}/templates/${template}`, label: "See the template", action: "templates.write" };
  const employment = idOf(detail.employment);
  if (employment && e.event_type !== "employment.deleted")
    return { href: `${base}/employees/${employment}`, label: "See the employee", action: "employees.read" };
  if (detail.endorsement)
    return { href: `${base}/endorsements`, label: "See the endorsements", action: "profile.read" };
  return null;
};
