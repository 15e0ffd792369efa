import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { type DocumentLoader, verifyCredential } from "@digitalbazaar/vc";
import { fail, ok } from "../../core/errors/mod.ts";
import { MULTIKEY_CONTEXT } from "../../core/obi/mod.ts";
import type { DataIntegrityCheck, DataIntegrityFailure, ExternalDocuments } from "../../core/workforce/mod.ts";
import { PINNED_CONTEXTS } from "./data_integrity.ts";

/** A DID document in this context is read as it is; any other controller document is framed. */
const DID_CONTEXT = "https://www.w3.org/ns/did/v1";
/** An Ed25519 did:key: the multibase public key is the whole identifier. */
const DID_KEY = /^did:key:(z6Mk[1-9A-HJ-NP-Za-km-z]+)$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

class Unresolved extends Error {
  readonly reason: DataIntegrityFailure;
  constructor(reason: DataIntegrityFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The DID document a did:key stands for (its one key, for every purpose), built, never fetched. */
const didKeyDocument = (did: string, multibase: string): { document: Obj; method: Obj } => {
  const method = {
    "@context": MULTIKEY_CONTEXT,
    id: `${did}#${multibase}`,
    type: "Multikey",
    controller: did,
    publicKeyMultibase: multibase,
  };
  const document = {
    "@context": DID_CONTEXT,
    id: did,
    verificationMethod: [method],
    assertionMethod: [method.id],
    authentication: [method.id],
  };
  return { document, method };
};

/** The verification method `id` within a fetched controller document, with the document's context. */
const methodIn = (document: Obj, id: string): Obj | null => {
  const candidates = ["verificationMethod", "assertionMethod"].flatMap((k) =>
    Array.isArray(document[k]) ? document[k] : [document[k]],
  );
  const found = candidates.find((m): m is Obj => isObj(m) && m.id === id);
  return found ? { "@context": document["@context"], ...found } : null;
};

/**
 * Checks other issuers' Data Integrity proofs (`eddsa-rdfc-2022`) with Digital Bazaar's
 * `@digitalbazaar/vc`. Its document loader answers the pinned contexts, builds `did:key`
 * documents from the identifier itself, and fetches through `documents` (the SSRF-guarded,
 * size- and time-bounded fetch of external badges) only the https verification method the proof
 * names and that method's controller: any other address, a context included, is refused.
 */
export const externalDataIntegrity = (documents: ExternalDocuments): DataIntegrityCheck => ({
  contexts: [...PINNED_CONTEXTS.keys()],
  async verify(credential) {
    const proofs = Array.isArray(credential.proof) ? credential.proof : [credential.proof];
    const proof = proofs.length === 1 && isObj(proofs[0]) ? proofs[0] : null;
    const method = typeof proof?.verificationMethod === "string" ? proof.verificationMethod : "";
    const fetchable = new Set([method.split("#")[0] as string]);
    const fetched = new Map<string, Obj>();
    let failure: Unresolved | null = null;

    const fetchOnce = async (url: string): Promise<Obj> => {
      const held = fetched.get(url);
      if (held) return held;
      const f = await documents.getJson(url);
      if (f.outcome === "blocked_address" || f.outcome === "unreachable") throw new Unresolved(f.outcome, url);
      if (f.outcome !== "answered" || f.status !== 200 || !isObj(f.json)) throw new Unresolved("key_unresolved", url);
      fetched.set(url, f.json);
      return f.json;
    };

    const load = async (url: string): Promise<Obj> => {
      const pinned = PINNED_CONTEXTS.get(url);
      if (pinned) return pinned as Obj;
      const [base, fragment] = url.split("#") as [string, string | undefined];
      const didKey = DID_KEY.exec(base);
      if (didKey) {
        const { document, method: key } = didKeyDocument(base, didKey[1] as string);
        if (fragment === undefined) return document;
        if (fragment !== didKey[1]) throw new Unresolved("key_unresolved", `${url} is not the key of ${base}`);
        return key;
      }
      if (!url.startsWith("https://") || !fetchable.has(base)) {
        throw new Unresolved("key_unresolved", `${url} is neither a pinned context nor the proof's key`);
      }
      const document = await fetchOnce(base);
      const found = fragment === undefined ? document : methodIn(document, url);
      if (!found) throw new Unresolved("key_unresolved", `${base} does not hold ${url}`);
      // The key's controller is the one other document a verification reads.
      if (url === method && typeof found.controller === "string")
        fetchable.add(found.controller.split("#")[0] as string);
      return found;
    };

    const documentLoader: DocumentLoader = async (url) => {
      try {
        return { contextUrl: null, documentUrl: url, document: await load(url) };
      } catch (err) {
        failure ??= err instanceof Unresolved ? err : new Unresolved("key_unresolved", String(err));
        throw err;
      }
    };

    // The time and status rules are core's, which names its own reasons: the library checks the
    // proof at the credential's own start, and reports every status as good.
    const from = credential.validFrom ?? credential.issuanceDate;
    const at = typeof from === "string" && !Number.isNaN(Date.parse(from)) ? from : undefined;
    let result: Awaited<ReturnType<typeof verifyCredential>>;
    try {
      result = await verifyCredential({
        credential: structuredClone(credential),
        suite: new DataIntegrityProof({ cryptosuite }),
        documentLoader,
        checkStatus: async () => ({ verified: true }),
        ...(at ? { now: at } : {}),
      });
    } catch {
      return fail<DataIntegrityFailure>((failure as Unresolved | null)?.reason ?? "malformed");
    }
    if (!result.verified)
      return fail<DataIntegrityFailure>((failure as Unresolved | null)?.reason ?? "signature_invalid");
    const key = result.results?.[0] as { verificationMethod?: { controller?: unknown } } | undefined;
    const controller = key?.verificationMethod?.controller;
    return typeof controller === "string" ? ok({ controller }) : fail<DataIntegrityFailure>("key_unresolved");
  },
});
