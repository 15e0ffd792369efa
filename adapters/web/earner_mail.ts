import type { LinkPurpose } from "../../core/earners/mod.ts";
import type { MailOutbox } from "../../core/mail/mod.ts";
import type { WebUrls } from "./urls.ts";

/** Who asked for a link that acts for an account: the mail names them, so a stranger's request shows. */
export interface LinkRequester {
  name: string;
  email: string;
}

/** Where the earner pages' mails go, with the time and ids they are written with. */
export interface EarnerMailDeps {
  outbox: Pick<MailOutbox, "enqueue">;
  clock: () => Date;
  newId: () => string;
}

/**
 * Every mail the earner pages send (sign-in, address confirmation, merge links), written to the
 * mail outbox as what it says; the mail templates render it when a sender sends it, and retry it
 * if the mail server is away.
 */
export const earnerMail = (deps: EarnerMailDeps, urls: WebUrls) => ({
  sendLink: (purpose: LinkPurpose, to: string, token: string, requester: LinkRequester | null = null): Promise<void> =>
    deps.outbox.enqueue({
      id: deps.newId(),
      kind: `${purpose}_link`,
      organization_id: null,
      content: {
        template: "account_link",
        to,
        purpose,
        requested_by: requester ? `${requester.name} <${requester.email}>` : null,
        link: urls.signInLink(token),
      },
      sent_event: null,
      created_at: deps.clock(),
    }),
});

export type EarnerMail = ReturnType<typeof earnerMail>;
