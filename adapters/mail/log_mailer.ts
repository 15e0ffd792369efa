import type { Mailer, MailMessage } from "../../core/mail/mod.ts";

/** Where the log mailer writes: a pino-style logger (Fastify's). */
export interface MailLog {
  info(obj: object, msg: string): void;
}

/** The links of a mail's text part, each once, in order (a sentence's closing mark left out). */
const linksOf = (text: string): string[] => [
  ...new Set([...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0].replace(/[.,;:!?)'\]]+$/, ""))),
];

/**
 * A mail as a developer reads it in a terminal: who it is for, its subject and every link on a
 * line of its own, where a JSON log line would wrap them among escaped text.
 */
export const readableMail = (message: Pick<MailMessage, "to" | "subject" | "text">): string => {
  const links = linksOf(message.text);
  return [
    `── Mail to ${message.to} (not sent: no SMTP_URL) ──`,
    `   Subject: ${message.subject}`,
    ...(links.length === 0
      ? ["   No link."]
      : [links.length === 1 ? "   Link:" : "   Links:", ...links.map((l) => `     ${l}`)]),
    "",
  ].join("\n");
};

/**
 * The mail port when no SMTP server is configured: each message goes to the log, whole, so a
 * developer can follow the accept link, and to `print` as `readableMail` when given (a terminal).
 * `sent` keeps the last messages for inspection in tests.
 */
export const logMailer = (
  log: () => MailLog,
  keep = 100,
  print?: (text: string) => void,
): Mailer & { sent: MailMessage[] } => {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      if (sent.length >= keep) sent.shift();
      sent.push(message);
      log().info({ mail: { to: message.to, subject: message.subject, text: message.text } }, "mail (no SMTP_URL)");
      print?.(readableMail(message));
    },
  };
};
