import type { Transporter } from "nodemailer";
import type { Mailer } from "../../core/mail/mod.ts";

/**
 * The mail port over SMTP with nodemailer. `url` is a nodemailer connection URL such as
 * `smtp://user:pass@mail.example.org:587` or `smtps://...:465`. The transport is pooled: at most
 * `maxConnections` SMTP connections per process, further messages wait their turn. A 5xx answer
 * from the server is a permanent failure (the port's `permanent: true`); anything else (no
 * connection, a timeout, a 4xx answer) is transient. The timeouts are short so an unreachable
 * server is retried later, by the outbox, instead of holding a sender for minutes. nodemailer loads
 * with the first mail: API processes, which only queue mail, never carry it.
 */
export const smtpMailer = (
  url: string,
  from: string,
  options: { maxConnections?: number } = {},
): Mailer & { close(): void } => {
  let transport: Promise<Transporter> | undefined;
  let opened: Transporter | undefined;
  const open = (): Promise<Transporter> => {
    transport ??= import("nodemailer").then(({ createTransport }) => {
      opened = createTransport({
        url,
        pool: true,
        maxConnections: options.maxConnections ?? 5,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      });
      return opened;
    });
    return transport;
  };
  return {
    async send(message) {
      try {
        await (await open()).sendMail({
          from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
      } catch (err) {
        const code = (err as { responseCode?: unknown }).responseCode;
        const permanent = typeof code === "number" && code >= 500 && code < 600;
        throw Object.assign(new Error(`SMTP: ${(err as Error).message}`, { cause: err }), { permanent });
      }
    },
    close: () => opened?.close(),
  };
};
