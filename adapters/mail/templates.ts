import htm from "htm";
import { h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import type { MailContent, MailMessage } from "../../core/mail/mod.ts";

/**
 * Every mail Laurel sends, rendered from what core or the pages said it should say (`MailContent`):
 * one layout, an HTML part written as Preact elements (every value escaped when rendered, so no part
 * is assembled from strings) and a text part with the same words and the link in full. Styles are
 * inline: mail programs drop style sheets.
 */
type Htm = { bind(hyperscript: typeof h): (strings: TemplateStringsArray, ...values: unknown[]) => VNode };
const html = (htm as unknown as Htm).bind(h);

type Content<T extends MailContent["template"]> = Extract<MailContent, { template: T }>;

interface Parts {
  subject: string;
  /** Paragraphs before the button. */
  lines: string[];
  button: { label: string; link: string };
  /** A smaller paragraph after the button. */
  footer?: string;
  /** Who the mail comes from, shown at its top. */
  from?: { name: string; image: string | null };
  /** A picture of what the mail is about (the badge), beside its name and description. */
  feature?: { image: string | null; name: string; description: string };
  /** Someone's own words, quoted after the first line: text, kept as written, line breaks included. */
  quote?: { from: string; text: string } | null;
}

/** Only http(s) addresses become images: anything else a client stored is left out. */
const imageUrl = (value: string | null): string | null => (value && /^https?:\/\//i.test(value) ? value : null);

const layout = (p: Parts): VNode => html`<div
  style="font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; max-width: 34rem; margin: 0 auto; padding: 1.5rem; color: #1d2330; line-height: 1.5"
>
  ${
    p.from &&
    html`<p style="margin: 0 0 1.25rem; font-weight: 600; color: #1f5f4a">
      ${imageUrl(p.from.image) && html`<img src=${imageUrl(p.from.image)} alt="" width="32" height="32" style="vertical-align: middle; border-radius: 6px; margin-right: 0.5rem" />`}${p.from.name}
    </p>`
  }
  ${
    p.feature &&
    html`<div style="text-align: center; margin: 0 0 1.25rem">
      ${imageUrl(p.feature.image) && html`<img src=${imageUrl(p.feature.image)} alt=${p.feature.name} width="160" height="160" style="display: block; margin: 0 auto 0.75rem" />`}
      <p style="margin: 0; font-size: 1.25rem; font-weight: 700">${p.feature.name}</p>
      <p style="margin: 0.25rem 0 0; color: #5b6472">${p.feature.description}</p>
    </div>`
  }
  ${p.lines.slice(0, 1).map((line) => html`<p style="margin: 0 0 1rem">${line}</p>`)}
  ${
    p.quote &&
    html`<p style="margin: 0 0 0.25rem; color: #5b6472; font-size: 0.9rem">A message from ${p.quote.from}:</p>
      <blockquote style="margin: 0 0 1rem; padding: 0.5rem 1rem; border-left: 4px solid #1f5f4a; background: #f3f6f4; white-space: pre-line">${p.quote.text}</blockquote>`
  }
  ${p.lines.slice(1).map((line) => html`<p style="margin: 0 0 1rem">${line}</p>`)}
  <p style="margin: 1.5rem 0">
    <a
      href=${p.button.link}
      style="display: inline-block; padding: 0.7rem 1.2rem; background: #1f5f4a; color: #ffffff; border-radius: 6px; text-decoration: none; font-weight: 600"
      >${p.button.label}</a
    >
  </p>
  <p style="margin: 0; color: #5b6472; font-size: 0.85rem">
    ${p.footer && html`${p.footer}<br />`}If the button does not work, open this address: ${p.button.link}
  </p>
</div>`;

const message = (to: string, p: Parts): MailMessage => ({
  to,
  subject: p.subject,
  text: `${[
    ...(p.feature ? [`${p.feature.name}: ${p.feature.description}`] : []),
    ...p.lines.slice(0, 1),
    ...(p.quote ? [`A message from ${p.quote.from}:\n${p.quote.text}`] : []),
    ...p.lines.slice(1),
  ].join("\n\n")}\n${p.button.link}\n${p.footer ? `\n${p.footer}\n` : ""}`,
  html: renderToString(layout(p)),
});

const NEXT_STEP: Record<Content<"pending_badge">["step"], string> = {
  accept: "Accept it to make it part of your record:",
  confirm_address: "Confirm this e-mail address on your account, then accept the badge:",
  create_account: "Create an account with this e-mail address to accept it:",
};

const ROLE_WORDS: Record<Content<"member_invitation">["role"], string> = {
  owner: "owner (everything, including members and ownership)",
  admin: "admin (everything but changing owners)",
  issuer: "issuer (issue, revoke and replace badges)",
  viewer: "viewer (read only)",
};

const LINK_WORDING: Record<
  Content<"account_link">["purpose"],
  { subject: string; intro: (who: string) => string; button: string }
> = {
  sign_in: {
    subject: "Your Laurel sign-in link",
    intro: () => "Use this link to sign in to Laurel.",
    button: "Sign in",
  },
  add_email: {
    subject: "Confirm your e-mail address on Laurel",
    intro: (who) =>
      `The Laurel account of ${who} asked to add this address. Open this link in the browser where that account is signed in to confirm it: badges sent to this address, and sign-ins with it, will go to that account. If that is not your account, ignore this e-mail.`,
    button: "Confirm this address",
  },
  merge: {
    subject: "Merge your Laurel accounts",
    intro: (who) =>
      `The Laurel account of ${who} asked to merge the account of this address into it. Open this link in the browser where that account is signed in to move this account's badges and addresses there. If that is not your account, ignore this e-mail.`,
    button: "Merge accounts",
  },
};

/** Each template: the parts of its mail. A new kind of mail fails to compile until it has one. */
const TEMPLATES: { [T in MailContent["template"]]: (c: Content<T>) => MailMessage } = {
  pending_badge: (c) =>
    message(c.to, {
      subject: `${c.issuer_name} sent you a badge: ${c.badge_name}`,
      from: { name: c.issuer_name, image: c.issuer_image_url },
      feature: { image: c.badge_image_url, name: c.badge_name, description: c.badge_description },
      lines: [
        `Hello ${c.recipient_name}, ${c.issuer_name} has issued you the badge "${c.badge_name}".`,
        NEXT_STEP[c.step],
      ],
      quote: c.message ? { from: c.issuer_name, text: c.message } : null,
      button: { label: c.step === "accept" ? "Accept your badge" : "See your badge", link: c.accept_url },
    }),
  member_invitation: (c) =>
    message(c.to, {
      subject: `Join ${c.organization_name} on Laurel`,
      from: { name: c.organization_name, image: null },
      lines: [
        `${c.invited_by} invites you to join ${c.organization_name} on Laurel as ${ROLE_WORDS[c.role]}.`,
        `Open this link and sign in with ${c.to} to accept:`,
      ],
      button: { label: "Accept the invitation", link: c.link },
      footer: `The invitation expires on ${c.expires_at.slice(0, 16).replace("T", " ")} UTC. If you did not expect it, ignore this e-mail.`,
    }),
  employee_invitation: (c) =>
    message(c.to, {
      subject: `${c.employer_name} invites you to connect your badges`,
      from: { name: c.employer_name, image: null },
      lines: [
        `Hello ${c.first_name},`,
        `${c.employer_name} invites you to connect your digital badges with your employee profile.`,
        "Sign in (or create an account) with this e-mail address to see the invitation:",
      ],
      button: { label: "See the invitation", link: c.link },
    }),
  account_link: (c) => {
    const w = LINK_WORDING[c.purpose];
    return message(c.to, {
      subject: w.subject,
      lines: [w.intro(c.requested_by ?? "someone")],
      button: { label: w.button, link: c.link },
      footer: "The link works once, for 15 minutes. If you did not ask for it, ignore this e-mail.",
    });
  },
  export_ready: (c) =>
    message(c.to, {
      subject: "Your Laurel export is ready",
      lines: ["The file with all your badges and your profile on Laurel is ready. The link works for 7 days."],
      button: { label: "Download your badges", link: c.link },
    }),
  endorsement_received: (c) =>
    message(c.to, {
      subject: `${c.endorser_name} endorses ${c.target_kind === "organization" ? c.organization_name : `"${c.target_name}"`}`,
      from: { name: c.endorser_name, image: null },
      lines: [
        c.target_kind === "organization"
          ? `${c.endorser_name} endorses ${c.organization_name} on Laurel.`
          : `${c.endorser_name} endorses your badge template "${c.target_name}" on Laurel.`,
        "Nothing is published until you accept it: accepted, it is signed into your Open Badges 3.0 records and shown on your pages. You may also reject it.",
      ],
      quote: { from: c.endorser_name, text: c.comment },
      button: { label: "Review the endorsement", link: c.link },
      footer: `You receive this as a member of ${c.organization_name} who may answer endorsements.`,
    }),
  recommendation: (c) =>
    message(c.to, {
      subject: `${c.organization_name} recommends a badge for you: ${c.badge_name}`,
      from: { name: c.organization_name, image: null },
      feature: { image: c.badge_image_url, name: c.badge_name, description: c.badge_description },
      lines: [
        `${c.organization_name} recommends that you earn the badge "${c.badge_name}" next.`,
        "Sign in to Laurel with this address to see what it asks for; you can also dismiss the recommendation there.",
      ],
      quote: c.message ? { from: c.organization_name, text: c.message } : null,
      button: { label: "See the recommendation", link: c.link },
      footer: "You receive this once for this recommendation.",
    }),
  written: (c) => ({ to: c.to, subject: c.subject, text: c.text, html: c.html }),
};

/** The mail templates, the mail sender's `render`. */
export const renderMail = (content: MailContent): MailMessage =>
  (TEMPLATES[content.template] as (c: MailContent) => MailMessage)(content);
