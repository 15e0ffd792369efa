import t from "tap";
import {
  type AttemptRequest,
  type ClaimedDelivery,
  DEFAULT_SCHEDULE,
  type DeliveryClaim,
  type DeliveryEvent,
  newDeliveryProgress,
  type PostResult,
  type RecordedAttempt,
  type RecordedFirstAttempt,
} from "../../core/webhooks/mod.ts";
import { failureLog } from "../../workers/runtime.ts";
import { type BookkeepingStore, webhookBookkeeping } from "../../workers/webhook_bookkeeping.ts";
import { postAttempt } from "../../workers/webhook_post.ts";

/**
 * The delivery worker's steps apart from the queues and the network: claiming, posting one
 * attempt, and recording it, each against a store or receiver kept in memory. The whole worker
 * against PostgreSQL, NATS and a real receiver is in test/e2e/webhooks_*.test.ts.
 */

const at = new Date("2026-03-01T10:00:00.000Z");
const event = (id: string): DeliveryEvent => ({
  event_id: id,
  organization_id: "org-1",
  event_type: "badge.issued",
  occurred_at: at,
});
const quietLog = { info: () => {}, warn: () => {}, error: () => {} };

/** A delivery store in memory: what each call was given, and deliveries held by one claim at a time. */
const memoryStore = () => {
  const calls = {
    claim: [] as DeliveryClaim[][],
    record: [] as RecordedAttempt[][],
    first: [] as RecordedFirstAttempt[][],
  };
  const held = new Set<string>();
  const store: BookkeepingStore = {
    events: async (refs) => new Map(refs.filter((r) => r.id !== "missing").map((r) => [r.id, event(r.id)])),
    existing: async (refs) => new Set(refs.filter((r) => r.id === "done").map((r) => r.id)),
    recordFirst: async (attempts) => {
      calls.first.push([...attempts]);
    },
    claim: async (claims, claimToken) => {
      calls.claim.push([...claims]);
      const claimed = new Map<string, ClaimedDelivery>();
      for (const c of claims) {
        if (held.has(c.deliveryId)) continue;
        held.add(c.deliveryId);
        const record = {
          ...event(c.deliveryId),
          id: c.deliveryId,
          created_at: at,
          ...newDeliveryProgress(at),
        } as unknown as ClaimedDelivery["record"];
        claimed.set(c.deliveryId, { record, claimToken });
      }
      return claimed;
    },
    defer: async () => {},
    record: async (attempts) => {
      if (attempts.some((a) => a.deliveryId === "refused")) throw new Error("row refused");
      calls.record.push([...attempts]);
    },
    abandon: async () => {},
    releasePutOff: async () => 0,
  };
  return { store, calls };
};

const books = (store: BookkeepingStore) =>
  webhookBookkeeping(
    { deliveries: store, clock: () => at, newId: () => "token-1", isRowRefusal: (e) => String(e).includes("refused") },
    30_000,
  );

t.test("claim: one statement for the claims of a tick, a delivery asked twice is attempted once", async (t) => {
  const { store, calls } = memoryStore();
  const b = books(store);
  const [a, again, other] = await Promise.all([
    b.claim({ deliveryId: "d-1" }),
    b.claim({ deliveryId: "d-1" }),
    b.claim({ deliveryId: "d-2" }),
  ]);
  t.equal(calls.claim.length, 1, "one call to the store");
  t.equal(a?.record.id, "d-1");
  t.equal(a?.claimToken, "token-1");
  t.equal(again, undefined, "the second ask of the same delivery gets nothing");
  t.equal(other?.record.id, "d-2");
  t.equal(await b.claim({ deliveryId: "d-1" }), undefined, "a delivery held already is not claimed again");
});

t.test("event and existing: a missing event is undefined, a recorded first delivery is found", async (t) => {
  const { store } = memoryStore();
  const b = books(store);
  const ref = (id: string) => ({ id, occurred_at: at });
  t.equal((await b.event(ref("e-1")))?.event_id, "e-1");
  t.equal(await b.event(ref("missing")), undefined);
  t.equal(await b.existing(ref("done")), true);
  t.equal(await b.existing(ref("e-1")), false);
});

t.test("record: attempts of a tick share a statement; a refused row fails alone", async (t) => {
  const { store, calls } = memoryStore();
  const b = books(store);
  const attempt = (deliveryId: string): RecordedAttempt => ({
    deliveryId,
    claimToken: "token-1",
    attempt: {} as RecordedAttempt["attempt"],
    progress: newDeliveryProgress(at),
  });
  const results = await Promise.allSettled([
    b.record(attempt("d-1")),
    b.record(attempt("refused")),
    b.record(attempt("d-2")),
  ]);
  t.same(
    results.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  t.same(
    calls.record.flat().map((a) => a.deliveryId),
    ["d-1", "d-2"],
    "the other two are stored",
  );
});

t.test("recordFirst: a first delivery that came twice in one batch is stored once", async (t) => {
  const { store, calls } = memoryStore();
  const b = books(store);
  const first = (id: string): RecordedFirstAttempt => ({
    event: event(id),
    attempt: {} as RecordedFirstAttempt["attempt"],
    progress: newDeliveryProgress(at),
  });
  await Promise.all([b.recordFirst(first("e-1")), b.recordFirst(first("e-1")), b.recordFirst(first("e-2"))]);
  t.same(
    calls.first.flat().map((a) => a.event.event_id),
    ["e-1", "e-2"],
  );
});

t.test("post: the signed request goes out once, and its answer decides the delivery's next state", async (t) => {
  const sent: AttemptRequest[] = [];
  let answer: PostResult = { status: 200, durationMs: 12 };
  const times = [at, new Date(at.getTime() + 12)];
  let tick = 0;
  const deps = {
    crypto: { sign: (key: string, input: string) => `sig(${key},${input.length})` },
    post: async (request: AttemptRequest) => {
      sent.push(request);
      return answer;
    },
    clock: () => times[tick++ % 2] as Date,
    random: () => 0.5,
    newId: () => "attempt-1",
    schedule: DEFAULT_SCHEDULE,
    log: quietLog,
  };
  const secrets = {
    current: "whsec_BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=",
    previous: null,
    previousExpiresAt: null,
  };
  const ok = await postAttempt(deps, event("e-1"), "e-1", newDeliveryProgress(at), secrets, "https://hooks.example/in");
  t.equal(sent.length, 1);
  t.equal(sent[0]?.url, "https://hooks.example/in");
  t.equal(sent[0]?.headers["webhook-id"], "e-1");
  t.match(sent[0]?.headers["webhook-signature"], /^v1,sig\(BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=,/);
  t.equal(ok?.progress.status, "succeeded");
  t.equal(ok?.attempt.id, "attempt-1");
  t.equal(ok?.now.getTime(), at.getTime() + 12, "the attempt ends when the answer came");

  answer = { status: 503, durationMs: 5 };
  const failed = await postAttempt(
    deps,
    event("e-2"),
    "e-2",
    newDeliveryProgress(at),
    secrets,
    "https://hooks.example/in",
  );
  t.equal(failed?.classification.succeeded, false);
  t.equal(failed?.progress.status, "pending", "a 503 is retried");
  t.ok(failed?.progress.nextAttemptAt, "at a time the schedule gives");
});

t.test("post: without a secret to sign with, nothing is posted", async (t) => {
  let posts = 0;
  const errors: object[] = [];
  const done = await postAttempt(
    {
      crypto: { sign: () => "x" },
      post: async () => {
        posts++;
        return { status: 200, durationMs: 1 };
      },
      clock: () => at,
      random: () => 0.5,
      newId: () => "attempt-1",
      schedule: DEFAULT_SCHEDULE,
      log: { ...quietLog, error: (obj) => errors.push(obj) },
    },
    event("e-1"),
    "e-1",
    newDeliveryProgress(at),
    { current: null, previous: null, previousExpiresAt: null },
    "https://hooks.example/in",
  );
  t.equal(done, null);
  t.equal(posts, 0);
  t.same(errors, [{ organization_id: "org-1" }]);
});

t.test("failureLog: the 1st and every 20th failure of a run are reported; a success ends the run", async (t) => {
  const reported: number[] = [];
  const log = failureLog((_err, n) => reported.push(n));
  for (let i = 0; i < 41; i++) log.failed(new Error("down"));
  t.same(reported, [1, 21, 41]);
  t.equal(log.count(), 41);
  t.equal(log.succeeded(), 41, "the run's length");
  log.failed(new Error("down again"));
  t.same(reported, [1, 21, 41, 1], "a new run is reported from its first failure");
});
