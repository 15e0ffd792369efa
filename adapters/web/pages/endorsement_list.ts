import type { VNode } from "preact";
import type { EndorsementView } from "../../../core/endorsements/mod.ts";
import { html } from "../html.ts";
import type { WebUrls } from "../urls.ts";

/** The accepted endorsements of a badge's template or of an organization: "Endorsed by X: comment". */
export const endorsementList = (endorsements: readonly EndorsementView[], urls: WebUrls, of: string): VNode | null =>
  endorsements.length === 0
    ? null
    : html`<section class="card" aria-labelledby="endorsements-h">
        <h2 id="endorsements-h">Endorsements</h2>
        <p class="small muted">Other organizations vouch for ${of}; each endorsement is a signed Open Badges credential.</p>
        <ul class="endorsements">
          ${endorsements.map(
            (e) => html`<li>
              <p>Endorsed by <a href=${urls.organizationPage(e.endorser_id)}>${e.endorser_name}</a>:</p>
              <blockquote>${e.comment}</blockquote>
            </li>`,
          )}
        </ul>
      </section>`;
