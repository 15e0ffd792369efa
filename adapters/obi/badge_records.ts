import type { BadgeView } from "../../core/issuing/mod.ts";
import {
  assertionDocument,
  assertionUrl,
  type ObiUrls,
  openBadgeCredentialPayload,
  recipientHashInput,
} from "../../core/obi/mod.ts";

/** Signs Open Badges 3.0 credentials; the JWT header names `kid`. */
interface Signer {
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * A badge's Open Badges records as served: the hosted OB 2.0 assertion's bytes and the OB 3.0
 * VC-JWT. The hosted routes, the baked images and the earner's export all take them from here,
 * so an embedded record is the hosted one byte for byte.
 */
export interface BadgeRecords {
  /** The OB 2.0 assertion document, serialized as the hosted route sends it. */
  assertion(view: BadgeView): Buffer;
  assertionUrl(badgeId: string): string;
  /** The unsigned OB 3.0 credential, serialized (what a signed copy depends on). */
  credentialPayload(view: BadgeView): string;
  credential(view: BadgeView): Promise<string>;
}

export const badgeRecords = (deps: {
  urls: ObiUrls & { v3Base: string };
  credentials: Signer;
  sha256Hex(input: string): string;
}): BadgeRecords => {
  const { urls } = deps;
  const hex = (view: BadgeView) =>
    deps.sha256Hex(recipientHashInput(view.badge.recipient_email, view.badge.recipient_salt));
  const payload = (view: BadgeView) =>
    openBadgeCredentialPayload(
      view.badge,
      view.template,
      view.issuer,
      hex(view),
      urls,
      view.statusIndex,
      view.endorsementJwt,
      view.authorizedIssuer,
    );
  return {
    assertion: (view) => Buffer.from(JSON.stringify(assertionDocument(view.badge, hex(view), urls.obiBase)), "utf8"),
    assertionUrl: (id) => assertionUrl(urls.obiBase, id),
    credentialPayload: (view) => JSON.stringify(payload(view)),
    credential: (view) => deps.credentials.sign({ ...payload(view) }),
  };
};
