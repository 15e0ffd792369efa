export type { MailLog } from "./log_mailer.ts";
export { logMailer } from "./log_mailer.ts";
export { smtpMailer } from "./smtp_mailer.ts";
