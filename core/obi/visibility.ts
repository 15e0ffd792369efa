import type { BadgeState, TemplateState } from "../badges/mod.ts";

export const OBI_VISIBILITY = { served: 200, not_found: 404, gone: 410 } as const;
export type ObiVisibility = keyof typeof OBI_VISIBILITY;

/**
 * Whether a badge's hosted records (the OB 2.0 assertion, the OB 3.0 credential) are served.
 * A private badge is hidden from everyone, in every state, like its page: its records are what a
 * verifier reads, and the evidence in them is the earner's to withhold. Made public again, they
 * are served again. Pending and rejected badges were never awarded in the earner's eyes, so they
 * do not exist publicly (404, like a deleted badge). Revoked answers 410 with the revocation
 * document, which is how OB 2.0 verifiers learn of a revocation. Replaced stays served: the earner
 * did earn it, and the replacement is a separate assertion; a 410 would make verifiers report a
 * revocation that never happened.
 */
export const obiVisibility = (badge: { state: BadgeState; public: boolean }): ObiVisibility => {
  if (!badge.public) return "not_found";
  switch (badge.state) {
    case "accepted":
    case "replaced":
      return "served";
    case "revoked":
      return "gone";
    case "pending":
    case "rejected":
      return "not_found";
  }
};

/**
 * A badge class is served once its template has been usable: archived templates still back the
 * assertions issued from them. Drafts were never published.
 */
export const obiTemplateVisibility = (state: TemplateState): ObiVisibility =>
  state === "draft" ? "not_found" : "served";

/**
 * Whether a baked image (the badge's image carrying its records) is offered to a viewer: as the
 * hosted records are, to anyone; and a private badge's to its earner alone, who may still carry
 * it elsewhere. A revoked, pending or rejected badge has no record worth carrying: none.
 */
export const bakedImageVisible = (
  badge: { state: BadgeState; public: boolean; user_id: string | null },
  viewerId: string | null,
): boolean => {
  if (badge.state !== "accepted" && badge.state !== "replaced") return false;
  return badge.public || (viewerId !== null && badge.user_id === viewerId);
};
