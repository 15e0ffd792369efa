import { type Static, type TSchema, Type } from "typebox";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * What a mail says, never how it looks: core and the pages write one of these to the outbox, and
 * the mail templates (an adapter) turn it into the HTML and text parts when it is sent. The kinds
 * are a closed union, so a new mail is a new template the compiler asks for.
 */
export const MailContent = Type.Union([
  Type.Object({
    template: Type.Literal("pending_badge"),
    to: Type.String(),
    /** Which next step the recipient has: accept, confirm the address first, or create an account. */
    step: Type.Union([Type.Literal("accept"), Type.Literal("confirm_address"), Type.Literal("create_account")]),
    recipient_name: Type.String(),
    issuer_name: Type.String(),
    issuer_image_url: Nullable(Type.String()),
    badge_name: Type.String(),
    badge_description: Type.String(),
    badge_image_url: Nullable(Type.String()),
    accept_url: Type.String(),
    /** The issuer's own words, shown as written. */
    message: Type.Optional(Nullable(Type.String())),
  }),
  Type.Object({
    template: Type.Literal("member_invitation"),
    to: Type.String(),
    invited_by: Type.String(),
    organization_name: Type.String(),
    role: Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("issuer"), Type.Literal("viewer")]),
    link: Type.String(),
    expires_at: Type.String(),
  }),
  Type.Object({
    template: Type.Literal("employee_invitation"),
    to: Type.String(),
    first_name: Type.String(),
    employer_name: Type.String(),
    link: Type.String(),
  }),
  Type.Object({
    template: Type.Literal("account_link"),
    to: Type.String(),
    purpose: Type.Union([Type.Literal("sign_in"), Type.Literal("add_email"), Type.Literal("merge")]),
    /** Who asked, for a link that acts for another account (`Name <address>`). */
    requested_by: Nullable(Type.String()),
    link: Type.String(),
  }),
  Type.Object({
    template: Type.Literal("export_ready"),
    to: Type.String(),
    link: Type.String(),
  }),
  Type.Object({
    template: Type.Literal("endorsement_received"),
    to: Type.String(),
    endorser_name: Type.String(),
    /** The endorsed organization. */
    organization_name: Type.String(),
    target_kind: Type.Union([Type.Literal("badge_template"), Type.Literal("organization")]),
    /** The template's name, or the endorsed organization's. */
    target_name: Type.String(),
    /** The endorser's own words, shown as written. */
    comment: Type.String(),
    link: Type.String(),
  }),
  Type.Object({
    template: Type.Literal("recommendation"),
    to: Type.String(),
    organization_name: Type.String(),
    badge_name: Type.String(),
    badge_description: Type.String(),
    badge_image_url: Nullable(Type.String()),
    /** The organization's own words, shown as written. */
    message: Nullable(Type.String()),
    link: Type.String(),
  }),
  /** A message written whole before templates existed (an outbox row from then), sent as written. */
  Type.Object({
    template: Type.Literal("written"),
    to: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    html: Type.String(),
  }),
]);
export type MailContent = Static<typeof MailContent>;
export type MailTemplate = MailContent["template"];
