import t from "tap";
import { DESTINATION_POLICY } from "../../core/webhooks/mod.ts";
import { destinationLimits } from "../../workers/destination_limits.ts";

// A short wait limit: waiters give up after 2 × maxWaitSeconds (here 100 ms).
const policy = { ...DESTINATION_POLICY, maxWaitSeconds: 0.05 };

t.test("a full destination queues in arrival order and hands slots over on release", async (t) => {
  const limits = destinationLimits(2, policy);
  t.equal(limits.acquire("a"), true);
  t.equal(limits.acquire("a"), true);
  // The average attempt is fast (first guess), so a third may wait in memory.
  const third = limits.acquire("a");
  const fourth = limits.acquire("a");
  t.type(third, Promise);
  t.type(fourth, Promise);
  const order: string[] = [];
  void (third as Promise<boolean>).then((g) => order.push(`third ${g}`));
  void (fourth as Promise<boolean>).then((g) => order.push(`fourth ${g}`));
  limits.release("a");
  await new Promise((r) => setImmediate(r));
  t.same(order, ["third true"]);
  limits.release("a");
  await new Promise((r) => setImmediate(r));
  t.same(order, ["third true", "fourth true"]);
  // Another destination is not affected by the first one's queue.
  t.equal(limits.acquire("b"), true);
});

t.test("a waiter past its time gives up (false), later waiters keep their own deadline", async (t) => {
  const limits = destinationLimits(4, policy);
  for (let i = 0; i < 4; i++) t.equal(limits.acquire("a"), true);
  const first = limits.acquire("a") as Promise<boolean>;
  await new Promise((r) => setTimeout(r, 60));
  const second = limits.acquire("a") as Promise<boolean>;
  const started = performance.now();
  t.equal(await first, false, "the first waiter gave up");
  t.ok(performance.now() - started < 90, "at its own deadline, not the second one's");
  // The slot is still held: the second waiter gets it on release, before its deadline.
  limits.release("a");
  t.equal(await second, true);
  limits.release("a");
  t.equal(limits.acquire("a"), true, "the slot came back");
});

t.test("one stalled answer does not put a healthy destination's queue off; a slow destination is", async (t) => {
  const limits = destinationLimits(2, DESTINATION_POLICY);
  const queueOf = (n: number): Array<boolean | Promise<boolean>> =>
    Array.from({ length: n }, () => limits.acquire("a"));
  for (let i = 0; i < 20; i++) limits.observe("a", 2, true);
  // A 2 s stall (this process paused, a new connection's handshake) in an otherwise 2 ms stream.
  limits.observe("a", 2_000, true);
  t.same(queueOf(2), [true, true], "both slots taken");
  const waiting = queueOf(20);
  t.equal(
    waiting.filter((g) => g === false).length,
    0,
    "20 arrivals wait for a slot: the outlier moved the average by at most about twice itself",
  );
  for (let i = 0; i < 22; i++) limits.release("a");
  t.same(await Promise.all(waiting), Array(20).fill(true), "and each got one");

  // Answers that stay slow raise the average until arrivals are put off rather than queued.
  for (let i = 0; i < 40; i++) limits.observe("b", 2_000, true);
  t.same(queueOf(0), []);
  const b = Array.from({ length: 4 }, () => limits.acquire("b"));
  t.same(b.slice(0, 2), [true, true], "slots of b");
  t.equal(b[3], false, "behind a 2 s destination, the second waiter would wait over 1 s: put off");
  t.type(b[2], Promise, "the first waiter still waits (1 s expected)");
  limits.release("b");
  t.equal(await b[2], true);
});

t.test("a stall of the worker itself does not put a saturated healthy destination off", async (t) => {
  // Eight slots and 248 deliveries waiting: what the shipped defaults (256 at once, 8 per
  // destination) allow toward one destination.
  let clock = 1_000;
  const limits = destinationLimits(8, DESTINATION_POLICY, () => clock);
  t.same(
    Array.from({ length: 8 }, () => limits.acquire("a")),
    Array(8).fill(true),
    "eight slots",
  );
  const waiting: Array<boolean | Promise<boolean>> = Array.from({ length: 248 }, () => limits.acquire("a"));
  t.notOk(waiting.includes(false), "248 wait (attempt time unknown yet: a fast first guess)");
  // Saturated at a steady pace: an answer a millisecond (8 in flight, 8 ms each); each slot goes to
  // the oldest waiter and a new delivery arrives.
  for (let i = 0; i < 400; i++) {
    clock += 1;
    limits.observe("a", 8, true);
    limits.release("a");
    waiting.push(limits.acquire("a"));
  }
  t.notOk(waiting.includes(false), "at that pace nobody is put off");
  // This process stalls for 300 ms: the eight answers in flight all look 300 ms slow, and their
  // slots are handed over together when it resumes.
  clock += 300;
  for (let i = 0; i < 8; i++) {
    limits.observe("a", 300, true);
    limits.release("a");
    waiting.push(limits.acquire("a"));
  }
  t.notOk(waiting.includes(false), "after the stall, arrivals still wait their turn");

  // Judged by the attempt time alone (nothing handed over yet to go by), the same answers put
  // arrivals off: the stall looks like a slow destination.
  let clock2 = 1_000;
  const byTime = destinationLimits(8, DESTINATION_POLICY, () => clock2);
  for (let i = 0; i < 8; i++) byTime.acquire("a");
  for (let i = 0; i < 400; i++) byTime.observe("a", 8, true);
  for (let i = 0; i < 8; i++) byTime.observe("a", 300, true);
  const queued = Array.from({ length: 248 }, () => byTime.acquire("a"));
  clock2 += 1;
  t.ok(queued.includes(false), "some of 248 arrivals are put off");

  // A destination whose slot really comes free only every 600 ms puts the second waiter off.
  let clock3 = 1_000;
  const slow = destinationLimits(1, DESTINATION_POLICY, () => clock3);
  t.equal(slow.acquire("s"), true);
  const slowWaiting: Array<boolean | Promise<boolean>> = [slow.acquire("s")];
  for (let i = 0; i < 40; i++) {
    clock3 += 600;
    slow.observe("s", 600, true);
    slow.release("s");
    slowWaiting.push(slow.acquire("s"));
  }
  t.notOk(slowWaiting.includes(false), "one waiter at a time waits 600 ms");
  t.equal(slow.acquire("s"), false, "a second one, 1.2 s behind: put off");

  // Settle every waiter, so no timer is left.
  for (let i = 0; i < 700; i++) limits.release("a");
  for (let i = 0; i < 300; i++) byTime.release("a");
  for (let i = 0; i < 50; i++) slow.release("s");
  await Promise.all([...waiting, ...queued, ...slowWaiting]);
});

t.test(
  "a destination that keeps every request without answering is put off before its average learns it",
  async (t) => {
    let clock = 1_000;
    const limits = destinationLimits(8, DESTINATION_POLICY, () => clock);
    t.same(
      Array.from({ length: 8 }, () => limits.acquire("slow")),
      Array(8).fill(true),
      "eight requests out to a receiver never heard from (a fast first guess)",
    );
    const early = limits.acquire("slow");
    t.type(early, Promise, "at once, a ninth waits: nothing says it is slow yet");
    clock += 500;
    t.type(limits.acquire("slow"), Promise, "half a second: a pace of 500 ms / 8 slots, so one more may wait");
    clock += 7_500;
    t.equal(limits.acquire("slow"), false, "eight seconds without an answer: the next is put off, not queued");
    t.ok(limits.putOffMs("slow", 0.5) >= 1_000, "behind a pace of at least 8 s / 8 slots");
    // A healthy destination beside it is untouched.
    t.equal(limits.acquire("fast"), true);
    // The first answer frees a slot: the pace is the answers' again.
    limits.observe("slow", 8_000, true);
    limits.release("slow");
    t.equal(await early, true, "the waiter got the freed slot");
    for (let i = 0; i < 9; i++) limits.release("slow");
    limits.release("fast");
  },
);

t.test("put-offs while a destination fails are released at its first success, once", async (t) => {
  const limits = destinationLimits(2, policy);
  limits.heldBack("a", "org-healthy");
  t.same(limits.observe("a", 5, true), [], "a put-off of a healthy destination is not held back");
  t.same(limits.observe("a", 5, false), []);
  limits.heldBack("a", "org-1");
  limits.heldBack("a", "org-2");
  limits.heldBack("a", "org-1");
  limits.heldBack("b", "org-3");
  t.same(limits.observe("a", 5, false), [], "a failure releases nothing");
  t.same(limits.observe("a", 5, true).sort(), ["org-1", "org-2"], "the first success releases each organization");
  t.same(limits.observe("a", 5, true), [], "and only once");
  t.equal(limits.recoveries("a"), 1, "one release counted (a put-off written across it is released again)");
  t.same(limits.observe("b", 5, true), [], "b had no failure: its put-off was its own pace");
});
