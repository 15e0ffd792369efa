import type { IssuingContext, IssuingDeps } from "../issuing/mod.ts";
import type { EarnerStore } from "./ports.ts";

/** What the earner use cases reach: their store, the issuing side, and a one-way hash of tokens. */
export interface EarnerDeps {
  store: EarnerStore;
  issuing: IssuingDeps;
  /** Hex digest of a link or session token: only digests are stored. */
  digest(token: string): string;
}

/** The clock, ids and randomness of one use case; `newToken` gives 256-bit unguessable tokens. */
export interface EarnerContext extends IssuingContext {
  newToken: () => string;
}
