import { createTransport } from "nodemailer";
import type { Mailer } from "../../core/issuing/mod.ts";

/**
 * The mail port over SMTP with nodemailer. `url` is a nodemailer connection URL such as
 * `smtp://user:pass@mail.example.org:587` or `smtps://...:465`. The transport is pooled: at most
 * `maxConnections` SMTP connections per process, further messages wait their turn.
 */
export const smtpMailer = (
  url: string,
  from: string,
  options: { maxConnections?: number } = {},
): Mailer & { close(): void } => {
  const pooled = new URL(url);
  pooled.searchParams.set("pool", "true");
  pooled.searchParams.set("maxConnections", String(options.maxConnections ?? 5));
  const transport = createTransport(pooled.toString());
  return {
    async send(message) {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    close: () => transport.close(),
  };
};
