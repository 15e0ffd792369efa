export type { MailLog } from "./log_mailer.ts";
export { logMailer, readableMail } from "./log_mailer.ts";
export { sharedMailBudget } from "./mail_budget.ts";
export { smtpMailer } from "./smtp_mailer.ts";
export { renderMail } from "./templates.ts";
