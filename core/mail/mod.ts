export type { MailTemplate } from "./content.ts";
export { MailContent } from "./content.ts";
export type {
  DueMail,
  MailBudget,
  Mailer,
  MailMessage,
  MailOutbox,
  MailSendContext,
  MailSendDeps,
  OutboxMail,
} from "./outbox.ts";
export { isPermanentMailFailure, MAIL_MAX_ATTEMPTS, mailRetryDelayMs, sendDueMail } from "./outbox.ts";
