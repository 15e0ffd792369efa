import { type MailContent, type Mailer, type MailMessage, type MailOutbox, sendDueMail } from "../core/mail/mod.ts";
import { type Log, pollLoop } from "./runtime.ts";

export interface MailSenderDeps {
  outbox: MailOutbox;
  mailer: Mailer;
  /** The mail templates: what a mail says, as the message sent. */
  render: (content: MailContent) => MailMessage;
  clock: () => Date;
  newEventId: () => string;
  random: () => number;
  log: Log;
  /** Counts each attempt by outcome: sent, retry, failed. */
  attempted?: (outcome: "sent" | "retry" | "failed") => void;
}

export interface MailSenderOptions {
  intervalMs: number;
  /** The longest wait while the outbox is empty; `wake()` (a new mail's notification) ends it. */
  idleMaxMs?: number;
  /** Mails claimed, and sent concurrently, at a time. */
  batch: number;
  /** How long a claimed mail is this sender's; after it (a sender that died), another takes it. */
  leaseMs: number;
  /** First retry delay after a transient failure; it doubles with each further failure. */
  retryBaseMs: number;
}

export interface MailSender {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Sends the mail outbox through the mail port. Safe in any number of processes: a mail is claimed
 * by one sender at a time (rows another holds are skipped), and one sent twice after a lost lease
 * records its event once.
 */
export const startMailSender = (deps: MailSenderDeps, options: MailSenderOptions): MailSender => {
  const sendOne = async (mail: Parameters<typeof sendDueMail>[2]): Promise<void> => {
    try {
      const outcome = await sendDueMail(
        { outbox: deps.outbox, mailer: deps.mailer, render: deps.render, baseDelayMs: options.retryBaseMs },
        { now: deps.clock(), newEventId: deps.newEventId, random: deps.random() },
        mail,
      );
      deps.attempted?.(outcome);
      if (outcome !== "sent") deps.log.warn({ mail: mail.id, kind: mail.kind, outcome }, "mail not sent");
    } catch (err) {
      // Recording the outcome failed (the database away): the lease runs out and it is tried again.
      deps.log.warn({ err, mail: mail.id }, "mail outcome not recorded");
    }
  };
  return pollLoop(
    async () => {
      const due = await deps.outbox.claimDue(deps.clock(), options.batch, options.leaseMs);
      await Promise.all(due.map(sendOne));
      return { full: due.length >= options.batch, found: due.length > 0 };
    },
    options,
    (err) => deps.log.warn({ err }, "mail sender could not read the outbox; retrying"),
  );
};
