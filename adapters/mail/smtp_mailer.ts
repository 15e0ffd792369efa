import { createTransport } from "nodemailer";
import type { Mailer } from "../../core/issuing/mod.ts";

/**
 * The mail port over SMTP with nodemailer. `url` is a nodemailer connection URL such as
 * `smtp://user:pass@mail.example.org:587` or `smtps://...:465`.
 */
export const smtpMailer = (url: string, from: string): Mailer & { close(): void } => {
  const transport = createTransport(url);
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
