import { type ExternalBadgeContext, type ExternalBadgeDeps, reverifyDue } from "../core/workforce/mod.ts";
import { type Log, pollLoop } from "./runtime.ts";

export interface ExternalReverifierOptions {
  /** How often due badges are looked for. */
  intervalMs: number;
  /** Badges claimed at a time. */
  batch: number;
  /** Verifications in flight at once (each is a few GETs to another issuer). */
  concurrency: number;
  /** How long a claimed badge is this worker's; one that dies leaves it to be taken after. */
  leaseMs: number;
}

export interface ExternalReverifier {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Verifies each external badge again once a day (its `next_verification_at`), in any number of
 * worker processes: a claim moves the badge's next check past the lease, so two workers never
 * take the same one.
 */
export const startExternalReverifier = (
  deps: ExternalBadgeDeps & { context: () => ExternalBadgeContext; log: Log },
  options: ExternalReverifierOptions,
): ExternalReverifier =>
  pollLoop(
    async () => {
      const n = await reverifyDue(deps, deps.context(), options);
      return { full: n >= options.batch, found: n > 0 };
    },
    options,
    (err) => deps.log.warn({ err }, "external badge re-verification failed; retrying"),
  );
