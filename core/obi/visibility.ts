import { type BadgeState, badgeVisibleOn, recordAnswer, type TemplateState } from "../badges/mod.ts";

export const OBI_VISIBILITY = { served: 200, not_found: 404, gone: 410 } as const;
export type ObiVisibility = keyof typeof OBI_VISIBILITY;

/** Whether a badge's hosted records (the OB 2.0 assertion, the OB 3.0 credential) are served: the badges' visibility table. */
export const obiVisibility = (badge: { state: BadgeState; public: boolean }): ObiVisibility => recordAnswer(badge);

/**
 * A badge class is served once its template has been usable: archived templates still back the
 * assertions issued from them. Drafts were never published.
 */
export const obiTemplateVisibility = (state: TemplateState): ObiVisibility =>
  state === "draft" ? "not_found" : "served";

/** Whether a baked image (the badge's image carrying its records) is offered to a viewer: the badges' visibility table. */
export const bakedImageVisible = (
  badge: { state: BadgeState; public: boolean; user_id: string | null },
  viewerId: string | null,
): boolean => badgeVisibleOn("baked", badge, viewerId);
