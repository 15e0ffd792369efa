import type { FastifyRequest } from "fastify";
import { byCredential } from "../../core/audit/mod.ts";
import type { IssuingContext, IssuingDeps } from "../../core/issuing/mod.ts";
import type { StatusListStore } from "../../core/obi/mod.ts";
import type { DataIntegritySigning, HostedRecordCache } from "../obi/mod.ts";

/** Signs Open Badges 3.0 credentials (the crypto adapter's `credentialSigner`). */
export interface CredentialSigning {
  /** The JWT header's `alg`. */
  alg: string;
  /** An absolute URL serving the signing key; the JWT header names it. */
  kid: string;
  /** Every key credentials are verified with, each under its `kid` (an absolute URL serving it). */
  publicJwks: { kid?: string | undefined }[];
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * Badge templates, badges and the hosted records, passed in by the app, with the sources of ids
 * and salts each request's `IssuingContext` takes (`newId` gives UUIDv7s too, so templates and
 * badges of equal timestamps still list in creation order).
 */
export interface BadgeRestDeps extends Pick<IssuingContext, "newId" | "newEventId" | "newSalt"> {
  issuing: IssuingDeps;
  hosted: HostedRecordCache;
  credentials: CredentialSigning;
  /** Signs the same credentials with an embedded Data Integrity proof (the crypto adapter's `dataIntegritySigner`). */
  dataIntegrity: DataIntegritySigning;
  /** The revocation status lists of OB 3.0 credentials. */
  statusLists: StatusListStore;
  /** Hex SHA-256 of a string (the OBI recipient identity). */
  sha256Hex(input: string): string;
}

/** With the request, its credential and client address are who the audit log names. */
export const issuingContext = (
  deps: { clock: () => Date; badges: BadgeRestDeps },
  request?: FastifyRequest,
): IssuingContext => ({
  now: deps.clock(),
  newId: deps.badges.newId,
  newEventId: deps.badges.newEventId,
  newSalt: deps.badges.newSalt,
  ...(request?.auth ? { by: byCredential(request.auth.credential, request.ip) } : {}),
});
