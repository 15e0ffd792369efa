import type { VNode } from "preact";
import { html } from "../html.ts";
import { csrfField, type Frame, layout, messagePage } from "../layout.ts";

export const signInPage = (
  frame: Frame,
  data: { email: string; next: string | null; error: string | null; context: string | null },
): VNode =>
  layout(
    frame,
    html`<section class="card narrow" aria-labelledby="signin-h">
      <h1 id="signin-h">Sign in</h1>
      ${data.context ? html`<p>${data.context}</p>` : null}
      <p>We will e-mail you a link that signs you in. No password needed.</p>
      ${data.error ? html`<p class="status bad" role="alert" id="signin-error">${data.error}</p>` : null}
      <form method="post" action="/sign_in" class="stack">
        ${csrfField(frame.csrf)}
        ${data.next ? html`<input type="hidden" name="next" value=${data.next} />` : null}
        <label for="email">E-mail address</label>
        <input id="email" name="email" type="email" required autocomplete="email" value=${data.email}
          aria-describedby=${data.error ? "signin-error" : undefined} />
        <button type="submit">Send me a sign-in link</button>
      </form>
    </section>`,
  );

export const linkSentPage = (frame: Frame, email: string): VNode =>
  messagePage(frame, "Check your inbox", [
    html`If ${html`<strong>${email}</strong>`} can receive mail, a link is on its way to it.`,
    "The link works once, for 15 minutes. You can close this page.",
  ]);

/**
 * The page a mailed link opens. Using the link takes a button press (a POST): mail scanners that
 * fetch every link in a message would otherwise use it up before the person does.
 */
export const linkConfirmPage = (frame: Frame, token: string): VNode =>
  layout(
    frame,
    html`<section class="card narrow" aria-labelledby="link-h">
      <h1 id="link-h">Continue to Laurel</h1>
      <p>This link signs you in, confirms an address or merges accounts, whichever you asked for.</p>
      <form method="post" action="/sign_in/link" class="stack">
        ${csrfField(frame.csrf)}
        <input type="hidden" name="token" value=${token} />
        <button type="submit">Continue</button>
      </form>
    </section>`,
  );

/**
 * The page a pending-badge mail's link opens while it still signs in: one button continues as the
 * badge's recipient (a POST, as for every mailed link), or the visitor signs in otherwise.
 */
export const badgeLinkPage = (
  frame: Frame,
  data: {
    badgeId: string;
    token: string;
    email: string;
    issuer: string;
    badge: string;
    /** Another account is signed in in this browser (its first address): continuing switches. */
    signedInAs: string | null;
  },
): VNode =>
  layout(
    frame,
    html`<section class="card narrow" aria-labelledby="badge-link-h">
      <h1 id="badge-link-h">Your badge is waiting</h1>
      <p>${data.issuer} sent you the badge “${data.badge}”.</p>
      <p>This link was e-mailed to ${html`<strong>${data.email}</strong>`}: continue to see the badge and accept it, with no password and no further e-mail.</p>
      ${data.signedInAs === null ? null : html`<p class="status warn">This browser is signed in as ${data.signedInAs}, another account: continuing signs it in as ${data.email} instead.</p>`}
      <form method="post" action=${`/badges/${data.badgeId}/continue`} class="stack">
        ${csrfField(frame.csrf)}
        <input type="hidden" name="token" value=${data.token} />
        <button type="submit">Continue</button>
      </form>
      <p class="small">Not ${data.email}? <a href=${`/sign_in?next=${encodeURIComponent(`/badges/${data.badgeId}`)}`}>Sign in with another address</a>.</p>
    </section>`,
  );

const LINK_FAILURES = {
  unknown: ["This link does not work", "It may have been mistyped. Ask for a new one."],
  used: ["This link was already used", "Each link works once. Ask for a new one to sign in."],
  expired: ["This link has expired", "Links work for 15 minutes. Ask for a new one."],
  wrong_account: [
    "Sign in first",
    "Open this link in the browser where the account that asked for it is signed in. If you did not ask for it, ignore it: nothing was changed.",
  ],
  email_taken: [
    "This address belongs to another account",
    "Merge that account into yours from your account page instead.",
  ],
  no_account: ["Nothing to merge", "That address has no other Laurel account."],
  account_closed: [
    "This link's account is closed",
    "The account that asked for this link was merged into another. Ask again from the account you use now.",
  ],
} as const;

export type LinkFailure = keyof typeof LINK_FAILURES;

export const linkFailedPage = (frame: Frame, reason: LinkFailure): VNode =>
  messagePage(
    frame,
    LINK_FAILURES[reason][0],
    [LINK_FAILURES[reason][1]],
    html`<p><a class="button" href="/sign_in">Get a new sign-in link</a></p>`,
  );
