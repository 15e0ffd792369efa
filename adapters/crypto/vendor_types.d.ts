// Declarations for the Data Integrity libraries, which ship no types; only what Laurel and its
// tests call.

declare module "@digitalbazaar/ed25519-multikey" {
  export interface Ed25519Signer {
    id: string;
    algorithm: string;
    sign(options: { data: Uint8Array }): Promise<Uint8Array>;
  }
  export interface Ed25519MultikeyPair {
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    signer(): Ed25519Signer;
  }
  /** A key pair from a JWK (OKP, Ed25519); with `secretKey`, the JWK's `d` is the secret key. */
  export function fromJwk(options: {
    jwk: object;
    secretKey?: boolean;
    id?: string;
    controller?: string;
  }): Promise<Ed25519MultikeyPair>;
}

declare module "@digitalbazaar/eddsa-rdfc-2022-cryptosuite" {
  export const cryptosuite: { name: "eddsa-rdfc-2022"; canonize: unknown; createVerifier: unknown };
}

declare module "@digitalbazaar/data-integrity" {
  export class DataIntegrityProof {
    /** `date: null` leaves `created` out of the proof. */
    constructor(options: {
      signer?: { id: string; algorithm: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> };
      cryptosuite: object;
      date?: string | Date | null;
    });
  }
}

declare module "@digitalbazaar/vc" {
  export type DocumentLoader = (
    url: string,
  ) => Promise<{ contextUrl: string | null; documentUrl: string; document: unknown }>;
  export function issue(options: {
    credential: object;
    suite: object;
    documentLoader: DocumentLoader;
  }): Promise<Record<string, unknown>>;
  export interface VerifyCredentialResult {
    verified: boolean;
    error?: Error & { errors?: Error[] };
    results?: { verified: boolean; error?: Error }[];
    statusResult?: { verified: boolean; results?: { verified: boolean; status?: boolean }[] };
  }
  export function verifyCredential(options: {
    credential: object;
    suite: object | object[];
    documentLoader: DocumentLoader;
    checkStatus?: (options: object) => Promise<unknown>;
    now?: Date | string;
  }): Promise<VerifyCredentialResult>;
}

declare module "@digitalbazaar/data-integrity-context" {
  export const contexts: Map<string, object>;
  export const DATA_INTEGRITY_CONTEXT_V2_URL: string;
}

declare module "@digitalbazaar/multikey-context" {
  export const contexts: Map<string, object>;
}

declare module "@digitalbazaar/security-context" {
  export const contexts: Map<string, object>;
}
