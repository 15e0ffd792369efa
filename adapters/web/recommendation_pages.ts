import type { FastifyInstance, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { templateImageUrl } from "../../core/badges/mod.ts";
import {
  dismissRecommendation,
  type RecommendationStore,
  type RecommendationView,
} from "../../core/recommendations/mod.ts";
import { html, safeUrl } from "./html.ts";
import { csrfField, type Frame } from "./layout.ts";
import { uuidParam } from "./routes_public.ts";
import { doneNotice } from "./sent.ts";
import type { WebUrls } from "./urls.ts";
import type { WebKit } from "./web_deps.ts";

const NOTICES: Record<string, string> = {
  recommendation_dismissed: "Recommendation dismissed: it will not be shown again.",
};

/** The wallet's notice after a recommendation was dismissed, if that is what `done` names. */
export const recommendationNotice = (request: FastifyRequest): string | null => doneNotice(NOTICES, request);

/**
 * The wallet's "Recommended for you": each open recommendation to one of the account's confirmed
 * addresses, with the template's picture, description and criteria, who recommends it and their
 * words, and a button to dismiss it. Nothing when there is none.
 */
export const recommendationsSection = (
  frame: Frame,
  items: readonly RecommendationView[],
  urls: WebUrls,
): VNode | null => {
  if (items.length === 0) return null;
  return html`<section class="card" id="recommendations" aria-labelledby="recommendations-h">
    <h2 id="recommendations-h">Recommended for you</h2>
    <ul class="plain recommendations">${items.map((r) => {
      const image =
        safeUrl(
          templateImageUrl(
            { publicBase: urls.publicUrl },
            { image: r.badge_template_image, image_url: r.badge_template_image_url },
          ),
        ) ?? urls.defaultImage;
      const criteria = safeUrl(r.badge_template_criteria_url);
      return html`<li class="recommendation" data-recommendation=${r.id}>
        <img src=${image} alt="" width="56" height="56" />
        <div>
          <h3>${r.badge_template_name}</h3>
          <p class="small">Recommended by <a href=${urls.organizationPage(r.organization_id)}>${r.organization_name}</a></p>
          <p>${r.badge_template_description}</p>
          ${r.message ? html`<blockquote>${r.message}</blockquote>` : null}
          ${criteria ? html`<p><a href=${criteria} rel="noopener noreferrer">What it asks for</a></p>` : null}
          <form method="post" action=${`/wallet/recommendations/${r.id}/dismiss`} class="inline">${csrfField(frame.csrf)}
            <button type="submit" class="secondary" aria-label=${`Dismiss the recommendation of ${r.badge_template_name}`}>Dismiss</button>
          </form>
        </div>
      </li>`;
    })}</ul></section>`;
};

/** The earner's dismissal of a recommendation (their own addresses' only: another's is 404). */
export const recommendationWalletRoutes = (kit: WebKit, store: RecommendationStore) => async (app: FastifyInstance) => {
  app.post("/wallet/recommendations/:id/dismiss", async (request, reply) => {
    const id = uuidParam(request);
    if (!request.earner) return reply.redirect("/sign_in?next=%2Fwallet", 303);
    await dismissRecommendation(store, kit.deps.context(), request.earner.user.id, id);
    return reply.redirect("/wallet?done=recommendation_dismissed#recommendations", 303);
  });
};
