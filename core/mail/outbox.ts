import type { EventRecord, EventType } from "../events/mod.ts";
import type { MailContent } from "./content.ts";

/** A mail as the mail server takes it: the templates' rendering of a `MailContent`. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Sends one message; resolves once the mail server accepted it. A rejection with
 * `permanent: true` means the server refused this message for good (an SMTP 5xx answer); any
 * other rejection is transient (the server unreachable, a 4xx answer) and worth retrying.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * How many notifications an organization may still send: a credential that can issue badges must
 * not turn the notification mail into a relay for mail in bulk.
 */
export interface MailBudget {
  /** Takes one message from the organization's budget; false: spent for now, send nothing. */
  take(organizationId: string): Promise<boolean>;
}

export const isPermanentMailFailure = (err: unknown): boolean =>
  typeof err === "object" && err !== null && (err as { permanent?: unknown }).permanent === true;

/**
 * A message waiting in the outbox, written in the same transaction as the change it tells about,
 * so it exists exactly when that change committed. Any kind of mail uses it.
 */
export interface OutboxMail {
  id: string;
  /** What sort of mail this is (`pending_badge_notification`...), for operators and metrics. */
  kind: string;
  /** The organization the mail is about, when there is one (its event is recorded there). */
  organization_id: string | null;
  /** What it says; the templates render it when it is sent. */
  content: MailContent;
  /** Recorded as an event of the organization once the mail server accepted the message. */
  sent_event: { event_type: EventType; detail: Record<string, unknown> } | null;
  created_at: Date;
}

/** A mail due for an attempt, with the attempts made so far. */
export interface DueMail extends OutboxMail {
  attempts: number;
}

export interface MailOutbox {
  /** Writes one mail on its own, due at once; a mail telling about a change is written with that change instead. */
  enqueue(mail: OutboxMail): Promise<void>;
  /**
   * Takes up to `limit` due mails for this sender: their next attempt moves `leaseMs` ahead, so no
   * other sender takes them meanwhile, and a sender that dies has its mails retried after the lease.
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<DueMail[]>;
  /** Removes the mail and records its events, together. */
  markSent(id: string, events: EventRecord[]): Promise<void>;
  retryAt(id: string, attempts: number, at: Date, error: string): Promise<void>;
  markFailed(id: string, attempts: number, error: string): Promise<void>;
  /** How many mails wait (`pending`) and how many failed for good (`failed`). */
  counts(): Promise<{ pending: number; failed: number }>;
}

/** Attempts before a transiently failing mail is given up (about a day with the default delays). */
export const MAIL_MAX_ATTEMPTS = 12;

/**
 * The wait after the `attempt`-th failure: `baseMs` doubled each time, at most an hour, with
 * `random` (0 to 1) spreading it over its upper half so retries of many mails do not come together.
 */
export const mailRetryDelayMs = (attempt: number, baseMs: number, random: number): number => {
  const full = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 3_600_000);
  return Math.round(full * (0.5 + random / 2));
};

export interface MailSendDeps {
  outbox: MailOutbox;
  mailer: Mailer;
  /** The mail templates: what a mail says, as its subject, text and HTML parts. */
  render: (content: MailContent) => MailMessage;
  baseDelayMs: number;
  maxAttempts?: number;
}

export interface MailSendContext {
  now: Date;
  newEventId: () => string;
  random: number;
}

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * One attempt at a due mail: sent (and its event recorded), put off with backoff after a transient
 * failure, or failed for good after a permanent one or the last attempt.
 */
export const sendDueMail = async (
  deps: MailSendDeps,
  ctx: MailSendContext,
  mail: DueMail,
): Promise<"sent" | "retry" | "failed"> => {
  const attempts = mail.attempts + 1;
  try {
    await deps.mailer.send(deps.render(mail.content));
  } catch (err) {
    if (isPermanentMailFailure(err) || attempts >= (deps.maxAttempts ?? MAIL_MAX_ATTEMPTS)) {
      await deps.outbox.markFailed(mail.id, attempts, describe(err));
      return "failed";
    }
    const at = new Date(ctx.now.getTime() + mailRetryDelayMs(attempts, deps.baseDelayMs, ctx.random));
    await deps.outbox.retryAt(mail.id, attempts, at, describe(err));
    return "retry";
  }
  const events: EventRecord[] =
    mail.sent_event && mail.organization_id
      ? [
          {
            id: ctx.newEventId(),
            organization_id: mail.organization_id,
            event_type: mail.sent_event.event_type,
            occurred_at: ctx.now,
            detail: mail.sent_event.detail,
          },
        ]
      : [];
  await deps.outbox.markSent(mail.id, events);
  return "sent";
};
