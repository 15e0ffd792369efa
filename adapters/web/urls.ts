/** Addresses the pages link to, from the configured public and API bases. */
export interface WebUrls {
  publicUrl: string;
  badgePage(id: string): string;
  badgeAction(id: string, action: "accept" | "reject" | "privacy" | "verify_email"): string;
  organizationPage(id: string): string;
  profilePage(idOrVanity: string): string;
  assertion(id: string): string;
  credential(id: string): string;
  /** The OB 3.0 credential as JSON-LD with an embedded Data Integrity proof. */
  credentialLdp(id: string): string;
  defaultImage: string;
  /**
   * The badge's image with its OB 2.0 assertion baked in (or, `ob3`, its OB 3.0 credential; `ob3_ldp`,
   * that credential with its Data Integrity proof).
   */
  bakedImage(id: string, type: "png" | "svg", format?: "ob3" | "ob3_ldp"): string;
  signInLink(token: string): string;
}

export const webUrls = (publicUrl: string, apiBase: string): WebUrls => ({
  publicUrl,
  badgePage: (id) => `${publicUrl}/badges/${id}`,
  badgeAction: (id, action) => `/badges/${id}/${action}`,
  organizationPage: (id) => `/organizations/${id}`,
  profilePage: (who) => `${publicUrl}/users/${encodeURIComponent(who)}`,
  assertion: (id) => `${apiBase}/obi/v2/badge_assertions/${id}`,
  credential: (id) => `${apiBase}/obi/v3/credentials/${id}`,
  credentialLdp: (id) => `${apiBase}/obi/v3/credentials/${id}/ldp`,
  defaultImage: `${apiBase}/obi/v2/images/default_badge.svg`,
  bakedImage: (id, type, format) => `/badges/${id}/image.${type}${format ? `?record=${format}` : ""}`,
  signInLink: (token) => `${publicUrl}/sign_in/link?token=${encodeURIComponent(token)}`,
});
