import t from "tap";
import { renderMail } from "../../adapters/mail/mod.ts";
import type { MailContent } from "../../core/mail/mod.ts";

/**
 * Every mail a person is sent looks alike: the badge mail, the sign-in, address and merge links,
 * the member and employee invitations and the export's link share one layout (the same frame, the
 * same button, the link again in full under it) and a text part with the link in full.
 */
const LINK = "https://laurel.example/x?token=abc";
const SAMPLES: Array<[string, MailContent]> = [
  [
    "badge",
    {
      template: "pending_badge",
      to: "ada@example.org",
      step: "accept",
      recipient_name: "Ada Lovelace",
      issuer_name: "Acme",
      issuer_image_url: null,
      badge_name: "Rust",
      badge_description: "Writes safe code",
      badge_image_url: null,
      accept_url: LINK,
      message: null,
    },
  ],
  ...(["sign_in", "add_email", "merge"] as const).map((purpose): [string, MailContent] => [
    purpose,
    { template: "account_link", to: "ada@example.org", purpose, requested_by: "Ada <ada@example.org>", link: LINK },
  ]),
  [
    "member invitation",
    {
      template: "member_invitation",
      to: "ada@example.org",
      invited_by: "Grace",
      organization_name: "Acme",
      role: "issuer",
      link: LINK,
      expires_at: "2026-12-14T10:00:00.000Z",
    },
  ],
  [
    "employee invitation",
    { template: "employee_invitation", to: "ada@example.org", first_name: "Ada", employer_name: "Acme", link: LINK },
  ],
  ["export", { template: "export_ready", to: "ada@example.org", link: LINK }],
];

/** The parts of the markup that make the look: the frame's and the button's inline styles. */
const look = (html: string) => ({
  frame: /^<div style="([^"]+)"/.exec(html)?.[1],
  button: new RegExp(`<a href="${LINK.replace(/[?.]/g, "\\$&")}" style="([^"]+)"`).exec(html)?.[1],
});

t.test("one layout for every mail a person gets", async (t) => {
  const badge = look(renderMail(SAMPLES[0]?.[1] as MailContent).html);
  t.ok(badge.frame && badge.button, "the badge mail has the frame and the button");
  for (const [label, content] of SAMPLES) {
    const mail = renderMail(content);
    t.same(look(mail.html), badge, `${label}: the badge mail's frame and button`);
    t.match(
      mail.html,
      `If the button does not work, open this address: ${LINK.replace("&", "&amp;")}`,
      `${label}: the link in full`,
    );
    t.match(mail.text, LINK, `${label}: the text part has the link`);
    t.ok(mail.subject.length > 0, `${label}: a subject`);
  }
});
