import type { VNode } from "preact";
import type { EarnerAccount } from "../../core/earners/mod.ts";
import { html, type Node } from "./html.ts";

/** Everything a page's frame needs: title, meta tags for link previews, who is signed in. */
export interface Frame {
  title: string;
  viewer: EarnerAccount | null;
  /** The CSRF token of forms in the frame (sign out). */
  csrf: string | null;
  /** Open Graph / Twitter card fields of a shareable page. */
  share?: { title: string; description: string; url: string; image: string | undefined };
  /** Pages behind sign-in or holding a link token are kept out of search engines. */
  noindex?: boolean;
  /**
   * Seconds after which the page reloads itself when scripts do not run (a progress page); with
   * scripts its own script updates it instead.
   */
  refreshWithoutScript?: number;
  /** A script of this page alone, under /assets/ (external: the CSP allows no inline script). */
  script?: string;
}

const shareMeta = (share: NonNullable<Frame["share"]>): Node => [
  html`<meta property="og:type" content="website" />`,
  html`<meta property="og:title" content=${share.title} />`,
  html`<meta property="og:description" content=${share.description} />`,
  html`<meta property="og:url" content=${share.url} />`,
  share.image ? html`<meta property="og:image" content=${share.image} />` : null,
  html`<meta name="twitter:card" content=${share.image ? "summary_large_image" : "summary"} />`,
  html`<meta name="twitter:title" content=${share.title} />`,
  html`<meta name="twitter:description" content=${share.description} />`,
  share.image ? html`<meta name="twitter:image" content=${share.image} />` : null,
  html`<meta name="description" content=${share.description} />`,
  html`<link rel="canonical" href=${share.url} />`,
];

const nav = (frame: Frame): VNode =>
  frame.viewer
    ? html`<nav aria-label="Account">
        <a href="/wallet">Wallet</a>
        <a href="/console">Console</a>
        <a href="/account">Account</a>
        <form method="post" action="/sign_out" class="inline">
          <input type="hidden" name="_csrf" value=${frame.csrf ?? ""} />
          <button type="submit" class="link">Sign out</button>
        </form>
      </nav>`
    : html`<nav aria-label="Account"><a href="/sign_in">Sign in</a></nav>`;

export const layout = (frame: Frame, ...body: Node[]): VNode =>
  html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${frame.title} · Laurel</title>
      ${frame.noindex ? html`<meta name="robots" content="noindex" />` : null}
      ${frame.share ? shareMeta(frame.share) : null}
      ${frame.refreshWithoutScript ? html`<noscript><meta http-equiv="refresh" content=${String(frame.refreshWithoutScript)} /></noscript>` : null}
      <link rel="stylesheet" href="/assets/laurel.css" />
      <script src="/assets/laurel.js" defer></script>
      ${frame.script ? html`<script src=${`/assets/${frame.script}`} defer></script>` : null}
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="site">
        <a class="brand" href="/wallet"><span aria-hidden="true" class="mark">✦</span> Laurel</a>
        ${nav(frame)}
      </header>
      <main id="main">${body}</main>
      <footer class="site"><p>Laurel · open digital credentials</p></footer>
    </body>
  </html>`;

/** A short page saying one thing: a link was sent, a link is used, nothing is here. */
export const messagePage = (frame: Frame, heading: string, lines: Node[], actions: Node = null): VNode =>
  layout(
    frame,
    html`<section class="card narrow message">
      <h1>${heading}</h1>
      ${lines.map((l) => html`<p>${l}</p>`)} ${actions}
    </section>`,
  );

export const csrfField = (token: string | null): VNode =>
  html`<input type="hidden" name="_csrf" value=${token ?? ""} />`;
