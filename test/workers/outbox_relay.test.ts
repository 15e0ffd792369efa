import t from "tap";
import type { Outbox } from "../../core/events/mod.ts";
import { startOutboxRelay } from "../../workers/outbox_relay.ts";
import { idleBackoff } from "../../workers/runtime.ts";

/**
 * Which organizations the relay asks the outbox for (the outbox itself is tested on PostgreSQL in
 * test/e2e/outbox_cursors.test.ts): all of them at start, at every poll and on a wake without a
 * name; between polls, only those its notifications named.
 */
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const metrics = {
  eventsPublished: () => {},
} as unknown as Parameters<typeof startOutboxRelay>[0]["metrics"];

const setup = async (opts: {
  alive: boolean;
  pollMs: number;
  idlePollMs?: number;
  full?: (call: number) => boolean;
}) => {
  const calls: Array<readonly string[] | undefined> = [];
  let notify: (organizationId?: string) => void = () => {};
  let waiting: (() => void) | undefined;
  const outbox: Outbox = {
    relayBatch: async (limit, _publish, organizations) => {
      calls.push(organizations ? [...organizations].sort() : undefined);
      waiting?.();
      return opts.full?.(calls.length) ? limit : 0;
    },
  };
  const relay = await startOutboxRelay(
    {
      outbox,
      publisher: { publish: async () => {} },
      metrics,
      log: quiet,
      listen: async (onNotify) => {
        notify = onNotify;
        return { alive: () => opts.alive, close: async () => {} };
      },
    },
    { batch: 10, pollMs: opts.pollMs, idlePollMs: opts.idlePollMs ?? opts.pollMs, fastPollMs: 20, relistenMs: 60_000 },
  );
  /** Resolves at the relay's n-th call of the outbox. */
  const call = (n: number): Promise<void> =>
    new Promise<void>((resolve) => {
      if (calls.length >= n) return resolve();
      waiting = () => {
        if (calls.length >= n) {
          waiting = undefined;
          resolve();
        }
      };
    });
  return { calls, notify: (o?: string) => notify(o), relay, call };
};

t.test("between polls, only the named organizations; everyone on a nameless wake", async (t) => {
  const r = await setup({ alive: true, pollMs: 60_000 });
  t.teardown(() => r.relay.stop());
  await r.call(1);
  t.same(r.calls, [undefined], "a look at everyone at start");
  r.notify("org-2");
  r.notify("org-1");
  r.notify("org-2");
  await r.call(2);
  t.same(r.calls[1], ["org-1", "org-2"], "then the named ones, once each");
  r.notify();
  await r.call(3);
  t.same(r.calls[2], undefined, "a notification without a name: everyone");
  r.relay.wake();
  await r.call(4);
  t.same(r.calls[3], undefined, "woken from outside: everyone");
  await new Promise((res) => setTimeout(res, 100));
  t.equal(r.calls.length, 4, "nothing more until a notification or the poll");
});

t.test("a full batch of named organizations is followed by another for the same ones", async (t) => {
  const r = await setup({ alive: true, pollMs: 60_000, full: (n) => n === 2 });
  t.teardown(() => r.relay.stop());
  await r.call(1);
  r.notify("org-1");
  await r.call(3);
  t.same(r.calls.slice(1), [["org-1"], ["org-1"]]);
});

t.test("polls look at everyone", async (t) => {
  const r = await setup({ alive: true, pollMs: 50 });
  t.teardown(() => r.relay.stop());
  await r.call(3);
  t.same(r.calls.slice(0, 3), [undefined, undefined, undefined]);
});

t.test("without a live listener every look is at everyone", async (t) => {
  const r = await setup({ alive: false, pollMs: 60_000 });
  t.teardown(() => r.relay.stop());
  await r.call(1);
  r.notify("org-1");
  await r.call(3);
  t.same(r.calls.slice(0, 3), [undefined, undefined, undefined]);
});

t.test("polls that find nothing come ever less often, up to the idle interval", async (t) => {
  const r = await setup({ alive: true, pollMs: 20, idlePollMs: 320 });
  t.teardown(() => r.relay.stop());
  await r.call(1);
  await new Promise((res) => setTimeout(res, 700));
  // At a steady 20 ms that is about 35 looks; doubling from 20 ms (20, 40, 80, 160, 320) about 6.
  t.ok(r.calls.length <= 10, `${r.calls.length} looks in 700 ms`);
  t.ok(r.calls.length >= 4, "still looking");
});

t.test("the idle wait doubles from the interval to its cap and starts over on reset", async (t) => {
  const b = idleBackoff(20, 100);
  t.same([b.next(), b.next(), b.next(), b.next(), b.next()], [20, 40, 80, 100, 100]);
  b.reset();
  t.equal(b.next(), 20);
  t.same(
    [idleBackoff(50, 10).next(), idleBackoff(50, 10).next()],
    [50, 50],
    "a cap below the interval is the interval",
  );
});
