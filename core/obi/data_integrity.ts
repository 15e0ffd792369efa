import { SECURITY_V2_CONTEXT } from "./context.ts";

/**
 * The verification method of an organization's Data Integrity proofs: the server's key
 * (`publicKeyMultibase`) under the organization, because a method's controller must be the
 * credential's issuer and one key signs for every organization.
 */
export const multikeyUrl = (v3Base: string, organizationId: string, publicKeyMultibase: string): string =>
  `${v3Base}/multikeys/${organizationId}/${publicKeyMultibase}`;

/**
 * An issuer profile that names `methods` as its `assertionMethod`: a Data Integrity verifier
 * accepts a proof only when the controller of its method (the issuer) lists the method so. The
 * profile's own contexts do not define the term; Security v2 does, as every verifier frames it.
 */
export const withAssertionMethod = <P extends { "@context": readonly string[] }>(
  profile: P,
  methods: string[],
): Omit<P, "@context"> & { "@context": string[]; assertionMethod: string[] } => ({
  ...profile,
  "@context": [...profile["@context"], SECURITY_V2_CONTEXT],
  assertionMethod: methods,
});
