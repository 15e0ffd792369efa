import { semaphore } from "./runtime.ts";

/**
 * A queue's slots: `work` for messages before and during their POST (the concurrency), `tail` for
 * every message taken and not yet settled, bookkeeping included; a message needs both to be taken.
 */
export const workSlots = (concurrency: number) => {
  const work = semaphore(concurrency);
  const tail = semaphore(4 * concurrency);
  const acquireSlowly = async (): Promise<void> => {
    await tail.acquire();
    await work.acquire();
  };
  return {
    work,
    tail,
    /** Resolved at once (no promise per message) while both are free, as they mostly are. */
    acquire(): Promise<void> | undefined {
      if (!tail.tryAcquire()) return acquireSlowly();
      if (!work.tryAcquire()) return work.acquire();
      return undefined;
    },
  };
};

export type WorkSlots = ReturnType<typeof workSlots>;

/** A message's work slot, released once (when its POST is over, or at the latest when settled). */
export class WorkSlot {
  private held = true;
  private readonly work: { release(): void };
  constructor(work: { release(): void }) {
    this.work = work;
  }
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.work.release();
  }
}
