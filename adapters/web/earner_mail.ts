import { renderToString } from "preact-render-to-string";
import type { LinkPurpose } from "../../core/earners/mod.ts";
import type { MailOutbox } from "../../core/mail/mod.ts";
import { html } from "./html.ts";
import type { WebUrls } from "./urls.ts";

/** Who asked for a link that acts for an account: the mail names them, so a stranger's request shows. */
export interface LinkRequester {
  name: string;
  email: string;
}

const WORDING: Record<LinkPurpose, { subject: string; intro: (who: string) => string; button: string }> = {
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

const FOOTER = "The link works once, for 15 minutes. If you did not ask for it, ignore this e-mail.";

/** Where the earner pages' mails go, with the time and ids they are written with. */
export interface EarnerMailDeps {
  outbox: Pick<MailOutbox, "enqueue">;
  clock: () => Date;
  newId: () => string;
}

/**
 * Every mail the earner pages send (sign-in, address confirmation, merge links), multipart text
 * and HTML, written to the mail outbox: a sender retries it if the mail server is away.
 */
export const earnerMail = (deps: EarnerMailDeps, urls: WebUrls) => ({
  sendLink: (
    purpose: LinkPurpose,
    to: string,
    token: string,
    requester: LinkRequester | null = null,
  ): Promise<void> => {
    const w = WORDING[purpose];
    const intro = w.intro(requester ? `${requester.name} <${requester.email}>` : "someone");
    const link = urls.signInLink(token);
    const body = html`<div style="font-family: sans-serif; max-width: 32rem">
      <p>${intro}</p>
      <p><a href=${link} style="display: inline-block; padding: 0.6rem 1rem; background: #1f5f4a; color: #fff; border-radius: 6px; text-decoration: none">${w.button}</a></p>
      <p style="color: #555; font-size: 0.9rem">${FOOTER}<br />${link}</p>
    </div>`;
    return deps.outbox.enqueue({
      id: deps.newId(),
      kind: `${purpose}_link`,
      organization_id: null,
      message: {
        to,
        subject: w.subject,
        text: `${intro}\n\n${link}\n\n${FOOTER}\n`,
        html: renderToString(body),
      },
      sent_event: null,
      created_at: deps.clock(),
    });
  },
});

export type EarnerMail = ReturnType<typeof earnerMail>;
