import type { VNode } from "preact";
import type { UserScope } from "../../core/auth/mod.ts";
import type { AuthorizeRequest, GrantListing } from "../../core/connect/mod.ts";
import { OB_SCOPE_PLAIN, OB_SCOPES, type ObScope, type PlatformRecord } from "../../core/ob_api/mod.ts";
import { formatDate, html } from "./html.ts";
import { csrfField, type Frame, layout } from "./layout.ts";

const SCOPE_TEXT: Record<UserScope, string> = {
  profile: "Your name, and the address of your public profile if you made it public",
  public_badges: "The badges you accepted and made public, and when that changes",
};

/** The consent page: who asks, for what, and a choice that needs a press of a button. */
export const consentPage = (
  frame: Frame,
  data: { request: AuthorizeRequest; organization: string; action: string; params: Record<string, string> },
): VNode =>
  layout(
    frame,
    html`<section class="card narrow" aria-labelledby="consent-h">
      <h1 id="consent-h">Connect ${data.request.app.name}?</h1>
      <p><strong>${data.organization}</strong> asks, through its application
        <strong> ${data.request.app.name}</strong>, to see:</p>
      <ul>
        ${data.request.scopes.map((s) => html`<li>${SCOPE_TEXT[s]}</li>`)}
      </ul>
      <p>It sees nothing else. You can remove this access at any time from your account's
        <a href="/account/connections"> connected applications</a>.</p>
      <form method="post" action=${data.action} class="stack">
        ${csrfField(frame.csrf)}
        ${Object.entries(data.params).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>
    </section>`,
  );

const isObScope = (s: string): s is ObScope => (OB_SCOPES as readonly string[]).includes(s);

/**
 * The consent page a platform registered through the Open Badges API gets: it belongs to no
 * organization, so the earner is shown what it registered itself as (name, logo, its own site,
 * terms and privacy policy), each Open Badges scope in plain words, and a choice about private badges.
 */
export const platformConsentPage = (
  frame: Frame,
  data: { request: AuthorizeRequest<PlatformRecord, string>; action: string; params: Record<string, string> },
): VNode => {
  const p = data.request.app;
  const readsCredentials = data.request.scopes.includes(OB_SCOPES[0]);
  return layout(
    frame,
    html`<section class="card narrow" aria-labelledby="consent-h">
      <img class="platform-logo" src=${p.logo_uri} alt="" width="64" height="64" />
      <h1 id="consent-h">Connect ${p.client_name}?</h1>
      <p><strong>${p.client_name}</strong> (<a href=${p.client_uri} rel="noopener noreferrer">${p.client_uri}</a>) is a
        platform that registered itself with this Laurel server. It is not run by Laurel or by an
        organization here. It asks to:</p>
      <ul class="scopes">
        ${data.request.scopes.filter(isObScope).map((s) => html`<li>${OB_SCOPE_PLAIN[s]}</li>`)}
      </ul>
      <p>Read its <a href=${p.tos_uri} rel="noopener noreferrer">terms of service</a> and
        <a href=${p.policy_uri} rel="noopener noreferrer"> privacy policy</a>. You can remove this
        access at any time from your account's <a href="/account/connections">connected applications</a>.</p>
      <form method="post" action=${data.action} class="stack">
        ${csrfField(frame.csrf)}
        ${Object.entries(data.params).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
        ${
          readsCredentials
            ? html`<label><input type="checkbox" name="private_badges" value="yes" /> Include the badges I keep
                off my public profile</label>`
            : null
        }
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>
    </section>`,
  );
};

const scopeWords = (scopes: string): string =>
  scopes
    .split(" ")
    .map((s) => (isObScope(s) ? OB_SCOPE_PLAIN[s] : s))
    .join(", ");

export const connectionsPage = (frame: Frame, grants: GrantListing[], done: string | null): VNode =>
  layout(
    frame,
    html`<section class="card" aria-labelledby="connections-h">
      <h1 id="connections-h">Connected applications</h1>
      ${done === "removed" ? html`<p class="status good" role="status">Access removed.</p>` : null}
      ${
        grants.length === 0
          ? html`<p>No application has access to your Laurel account.</p>`
          : html`<ul class="connections">
              ${grants.map(
                (g) => html`<li>
                  <h2>${g.application_name}</h2>
                  ${
                    g.organization_name === null
                      ? html`<p>A platform connected through the Open Badges API, since ${formatDate(g.created_at)}.</p>`
                      : html`<p>From <strong>${g.organization_name}</strong>, since ${formatDate(g.created_at)}.</p>`
                  }
                  <p>Sees: ${scopeWords(g.scopes)}${g.private_badges ? ", including private badges" : ""}</p>
                  <form method="post" action=${`/account/connections/${g.id}/remove`} class="inline">
                    ${csrfField(frame.csrf)}
                    <button type="submit" class="danger">Remove access</button>
                  </form>
                </li>`,
              )}
            </ul>`
      }
      <p><a href="/account">Back to your account</a></p>
    </section>`,
  );
