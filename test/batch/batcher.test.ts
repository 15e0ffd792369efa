import t from "tap";
import { batcher } from "../../adapters/batch/mod.ts";

/** A `run` whose batches finish when the test says, recording what each batch held. */
const controlled = () => {
  const batches: { items: number[]; key: string; finish(answers?: string[]): void; fail(err: unknown): void }[] = [];
  const run = (items: number[], key: string): Promise<string[]> =>
    new Promise((resolve, reject) => {
      batches.push({
        items,
        key,
        finish: (answers) => resolve(answers ?? items.map((i) => `answer ${i}`)),
        fail: reject,
      });
    });
  return { batches, run };
};

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Turns of the event loop until `count` batches have started (a freed lane runs its next one at a later turn). */
const started = async (batches: unknown[], count: number): Promise<void> => {
  for (let i = 0; i < 10 && batches.length < count; i++) await turn();
};

t.test("each call gets its own answer; calls made while a batch runs form the next batch", async (t) => {
  const { batches, run } = controlled();
  const call = batcher(run, { maxItems: 100, maxInFlight: 1 });
  const first = [call(1), call(2)];
  await turn();
  t.same(
    batches.map((b) => b.items),
    [[1, 2]],
    "the calls of one turn share a batch",
  );
  const second = [call(3), call(4), call(5)];
  await turn();
  t.equal(batches.length, 1, "no second batch while the lane's one runner is busy");
  batches[0]?.finish();
  t.same(await Promise.all(first), ["answer 1", "answer 2"]);
  await started(batches, 2);
  t.same(
    batches.map((b) => b.items),
    [
      [1, 2],
      [3, 4, 5],
    ],
    "the waiting calls went out together",
  );
  batches[1]?.finish();
  t.same(await Promise.all(second), ["answer 3", "answer 4", "answer 5"]);
});

t.test("maxItems and maxInFlight bound each lane; lanes of other keys run beside it", async (t) => {
  const { batches, run } = controlled();
  const call = batcher(run, { maxItems: 2, maxInFlight: 2, key: (i) => (i >= 100 ? "b" : "a") });
  const calls = [1, 2, 3, 4, 5, 100].map(call);
  await turn();
  t.same(
    batches.map((b) => [b.key, b.items]),
    [
      ["a", [1, 2]],
      ["a", [3, 4]],
      ["b", [100]],
    ],
    "two batches of two in lane a, and lane b's own",
  );
  batches[0]?.finish();
  await calls[0];
  await started(batches, 4);
  t.same(batches[3]?.items, [5], "a runner freed takes the rest");
  for (const b of batches.slice(1)) b.finish();
  t.same(await Promise.all(calls), ["answer 1", "answer 2", "answer 3", "answer 4", "answer 5", "answer 100"]);
});

t.test("a failed batch: isolated calls run alone and fail alone; others fail together", async (t) => {
  const { batches, run } = controlled();
  const isolating = batcher(run, {
    maxItems: 10,
    maxInFlight: 1,
    isolateFailures: (err) => err === "row refused",
    runOne: async (i) => {
      if (i === 2) throw new Error("2 refused");
      return `alone ${i}`;
    },
  });
  const calls = [1, 2, 3].map((i) => isolating(i).then(String, (e: Error) => e.message));
  await turn();
  batches[0]?.fail("row refused");
  t.same(await Promise.all(calls), ["alone 1", "2 refused", "alone 3"]);

  const plain = batcher(run, { maxItems: 10, maxInFlight: 1, isolateFailures: (err) => err === "row refused" });
  const both = [7, 8].map((i) => plain(i).then(String, (e: unknown) => `failed: ${String(e)}`));
  await turn();
  batches[1]?.fail("store away");
  t.same(await Promise.all(both), ["failed: store away", "failed: store away"]);

  const third = [9, 10].map((i) => plain(i).then(String, (e: Error) => e.message));
  await turn();
  batches[2]?.finish(["only one"]);
  t.same(await Promise.all(third), [
    "batcher: a batch answered the wrong number of calls",
    "batcher: a batch answered the wrong number of calls",
  ]);
});

t.test("a lane with a linger waits for more before a batch that is not full", async (t) => {
  const { batches, run } = controlled();
  const call = batcher(run, { maxItems: 3, maxInFlight: 1, lingerMs: 50 });
  const first = call(1);
  await new Promise((r) => setTimeout(r, 70));
  t.equal(batches.length, 1);
  const second = call(2);
  batches[0]?.finish();
  await first;
  await started(batches, 2);
  t.equal(batches.length, 1, "the next batch lingers");
  const third = call(3);
  await new Promise((r) => setTimeout(r, 70));
  t.same(batches[1]?.items, [2, 3], "what came while it lingered joined it");
  batches[1]?.finish();
  t.same(await Promise.all([second, third]), ["answer 2", "answer 3"]);
});

t.test("an eager lane runs a lone call in the caller's turn", async (t) => {
  const { batches, run } = controlled();
  const call = batcher(run, { maxItems: 10, maxInFlight: 1, eager: true });
  const one = call(1);
  t.same(
    batches.map((b) => b.items),
    [[1]],
  );
  batches[0]?.finish();
  t.equal(await one, "answer 1");
});
