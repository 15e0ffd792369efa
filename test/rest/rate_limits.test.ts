import Fastify, { type FastifyReply } from "fastify";
import t from "tap";
import { NO_LIMITS, registerRateLimits, type SharedCounter } from "../../adapters/rest/rate_limits.ts";
import { isCoreError } from "../../core/errors/mod.ts";

const SETTINGS = { tokenPerMinute: 100, authFailuresPerMinute: 2, adminPerMinute: 100, issuePerMinute: 100 };

/** A reply that only records the headers set on it. */
const replyStub = () => {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers };
};

const refused = (check: () => void): string | null => {
  try {
    check();
    return null;
  } catch (err) {
    return isCoreError(err) ? err.code : `unexpected ${String(err)}`;
  }
};

t.test("limits off: nothing registered, no hooks, checks let everything through", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  const limits = await registerRateLimits(app, { settings: null });
  t.equal(limits, NO_LIMITS);
  t.equal(limits.on, false);
  t.equal(limits.failuresSeen(), false);
  t.same([limits.token, limits.issue, limits.admin], [undefined, undefined, undefined]);
  t.notOk(app.hasDecorator("rateLimit"), "@fastify/rate-limit is not registered");
  await limits.failed("ip:1");
  t.equal(
    refused(() => limits.refuseIfFailing(replyStub().reply, "ip:1")),
    null,
  );
});

t.test("failed authentications counted in this process refuse the key once over the limit", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  const limits = await registerRateLimits(app, { settings: SETTINGS });
  t.equal(limits.on, true);
  const { reply, headers } = replyStub();
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "ip:a")),
    null,
    "no failure seen yet",
  );
  for (let i = 0; i < 2; i++) await limits.failed("ip:a");
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "ip:a")),
    null,
    "at the limit, not over it",
  );
  await limits.failed("ip:a");
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "ip:a")),
    "rate_limited",
    "over the limit",
  );
  const after = Number(headers["retry-after"]);
  t.ok(after >= 1 && after <= 60, `Retry-After ${after}`);
  t.equal(
    refused(() => limits.refuseIfFailing(replyStub().reply, "ip:b")),
    null,
    "another key is not held back",
  );
});

t.test("failures counted through the shared counter: its total and window decide", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  const hits: string[] = [];
  // Other processes already counted 10 failures of this key; the window closes in 150 ms.
  const windowEnds = Date.now() + 150;
  const shared: SharedCounter = {
    hit: async (key) => {
      hits.push(key);
      return { hits: 10 + hits.length, ttlMs: Math.max(0, windowEnds - Date.now()) };
    },
  };
  const limits = await registerRateLimits(app, { settings: SETTINGS, shared });
  const { reply } = replyStub();
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "client:x")),
    null,
    "nothing counted here yet: let through",
  );
  await limits.failed("client:x");
  t.same(hits, ["shared:auth-failures:client:x"], "counted in the shared counter");
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "client:x")),
    "rate_limited",
    "the shared total is over",
  );
  await new Promise((r) => setTimeout(r, 200));
  t.equal(
    refused(() => limits.refuseIfFailing(reply, "client:x")),
    null,
    "the window closed",
  );
});

t.test("an unreachable shared counter lets requests through", async (t) => {
  const [app, other] = [Fastify(), Fastify()];
  t.teardown(() => Promise.all([app.close(), other.close()]));
  const shared: SharedCounter = { hit: () => Promise.reject(new Error("database down")) };
  const settings = { ...SETTINGS, authFailuresPerMinute: 1 };
  const limits = await registerRateLimits(app, { settings });
  const down = await registerRateLimits(other, { settings, shared });
  for (let i = 0; i < 3; i++) {
    await limits.failed("ip:c");
    await down.failed("ip:c");
  }
  t.equal(
    refused(() => limits.refuseIfFailing(replyStub().reply, "ip:c")),
    "rate_limited",
    "counted locally",
  );
  t.equal(
    refused(() => down.refuseIfFailing(replyStub().reply, "ip:c")),
    null,
    "nothing counted: let through",
  );
});

t.test("a client id over its failures refuses only the addresses that failed", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  const limits = await registerRateLimits(app, { settings: SETTINGS });
  t.equal(limits.failuresSeen(), false, "no failure seen: callers may skip working out keys");
  for (let i = 0; i < 3; i++) await limits.failed("client:k");
  t.equal(limits.failuresSeen(), true);
  await limits.failed("ip:guesser");
  const check = (address: string) =>
    refused(() => limits.refuseIfFailingClient(replyStub().reply, address, "client:k"));
  t.equal(check("ip:guesser"), "rate_limited", "an address that failed, while the client id is over");
  t.equal(check("ip:clean"), null, "an address with no failure is let through to present its secret");
  t.equal(
    refused(() => limits.refuseIfFailingClient(replyStub().reply, "ip:guesser", "client:other")),
    null,
    "one failure of the address does not refuse it for a client id under the limit",
  );
  for (let i = 0; i < 2; i++) await limits.failed("ip:guesser");
  t.equal(
    refused(() => limits.refuseIfFailingClient(replyStub().reply, "ip:guesser", "client:other")),
    "rate_limited",
    "an address over its own limit is refused for every client id",
  );
});
