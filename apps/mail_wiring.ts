import { uuidv7 } from "../adapters/crypto/mod.ts";
import { type Database, listenForMail, postgresMailOutbox } from "../adapters/db/mod.ts";
import { logMailer, renderMail, smtpMailer } from "../adapters/mail/mod.ts";
import type { MetricsRegistry } from "../adapters/metrics/mod.ts";
import { type Log, startMailSender } from "../workers/mod.ts";
import type { Config } from "./config.ts";

export interface MailPipeline {
  stop(): Promise<void>;
}

/**
 * The mail outbox's sender, in every process that runs workers: SMTP when SMTP_URL is set, else
 * the log. Exports the outbox's waiting and failed mails and the attempts by outcome.
 */
export const startMailPipeline = async (
  config: Pick<Config, "smtpUrl" | "mailFrom" | "mail" | "limits">,
  db: Database,
  log: Log,
  registry?: MetricsRegistry,
): Promise<MailPipeline> => {
  const outbox = postgresMailOutbox(db);
  const smtp = config.smtpUrl
    ? smtpMailer(config.smtpUrl, config.mailFrom, { maxConnections: config.limits.smtpMaxConnections })
    : null;
  const attempts = registry?.counter("laurel_mail_attempts_total", "Mail sending attempts by outcome");
  registry?.gauge("laurel_mail_outbox", "Mails waiting to be sent (pending) and given up (failed)", async () => {
    const counts = await outbox.counts();
    return [
      { labels: { status: "pending" }, value: counts.pending },
      { labels: { status: "failed" }, value: counts.failed },
    ];
  });
  const sender = startMailSender(
    {
      outbox,
      // Without SMTP a developer reads the mail in the terminal: its subject and links, plainly.
      mailer:
        smtp ??
        logMailer(
          () => log,
          100,
          (text) => process.stderr.write(text),
        ),
      render: renderMail,
      clock: () => new Date(),
      newEventId: uuidv7,
      random: Math.random,
      log,
      attempted: (outcome) => attempts?.inc({ outcome }),
    },
    {
      intervalMs: config.mail.pollIntervalMs,
      // A queued mail's notification wakes the sender; the poll only backs it up.
      idleMaxMs: Math.max(config.mail.pollIntervalMs, 5_000),
      batch: 20,
      leaseMs: 120_000,
      retryBaseMs: config.mail.retryBaseMs,
    },
  );
  const listening = await listenForMail(db, sender.wake, (err) => log.warn({ err }, "mail notifications lost"));
  return {
    stop: async () => {
      await listening?.close();
      await sender.stop();
      smtp?.close();
    },
  };
};
