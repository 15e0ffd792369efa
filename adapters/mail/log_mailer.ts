import type { Mailer, MailMessage } from "../../core/mail/mod.ts";

/** Where the log mailer writes: a pino-style logger (Fastify's). */
export interface MailLog {
  info(obj: object, msg: string): void;
}

/**
 * The mail port when no SMTP server is configured: each message goes to the log, whole, so a
 * developer can follow the accept link. `sent` keeps the last messages for inspection in tests.
 */
export const logMailer = (log: () => MailLog, keep = 100): Mailer & { sent: MailMessage[] } => {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      if (sent.length >= keep) sent.shift();
      sent.push(message);
      log().info({ mail: { to: message.to, subject: message.subject, text: message.text } }, "mail (no SMTP_URL)");
    },
  };
};
