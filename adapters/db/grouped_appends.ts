import type { EventRecord } from "../../core/events/mod.ts";

interface Waiting {
  events: EventRecord[];
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Appends that need no other write in their transaction (notifications, recorded after their mail
 * went out) are grouped: while one transaction commits, the next calls wait and then share one
 * transaction. Each call still resolves only once its events are committed. Under load this turns
 * N commits (each holding the organization's event counter) into a few.
 */
export const groupedAppends = (
  commit: (events: EventRecord[]) => Promise<void>,
  maxEvents = 500,
): ((events: EventRecord[]) => Promise<void>) => {
  const queue: Waiting[] = [];
  let running = false;
  const drain = async (): Promise<void> => {
    running = true;
    while (queue.length > 0) {
      const batch: Waiting[] = [];
      let size = 0;
      while (queue.length > 0 && (batch.length === 0 || size + (queue[0] as Waiting).events.length <= maxEvents)) {
        const next = queue.shift() as Waiting;
        batch.push(next);
        size += next.events.length;
      }
      try {
        await commit(batch.flatMap((w) => w.events));
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    running = false;
  };
  return (events) =>
    new Promise<void>((resolve, reject) => {
      if (events.length === 0) return resolve();
      queue.push({ events, resolve, reject });
      if (!running) void drain();
    });
};
