import t from "tap";
import { deliveryCountOf } from "../../adapters/bus/jetstream_webhooks.ts";
import { attemptFields, firstAttemptsJson, progressFields } from "../../adapters/db/postgres_webhook_store.ts";
import { metricsRegistry } from "../../adapters/metrics/mod.ts";
import type { RecordedFirstAttempt } from "../../core/webhooks/mod.ts";

const T0 = new Date("2024-03-01T12:00:00.250Z");
const at = (ms: number): Date => new Date(T0.getTime() + ms);

t.test("recordFirst's batch parameter is the JSON of one flat object per row, as JSON.stringify writes it", (t) => {
  const rows: RecordedFirstAttempt[] = [];
  for (let i = 0; i < 300; i++) {
    const started = at(i * 1_777);
    const succeeded = i % 3 !== 0;
    rows.push({
      event: {
        event_id: `0190a0b0-0000-7000-8000-${String(i).padStart(12, "0")}`,
        organization_id: i === 7 ? 'odd "text" \\ \u0001 é 😀 \u2028' : "0190a0b0-0000-4000-8000-000000000003",
        event_type: "badge.created",
        occurred_at: at(i * 1_777 - 5_000),
      },
      attempt: {
        id: `0190a0b0-0000-7000-9000-${String(i).padStart(12, "0")}`,
        delivery_id: `0190a0b0-0000-7000-8000-${String(i).padStart(12, "0")}`,
        attempt_number: 1,
        started_at: started,
        duration_ms: i % 9,
        status_code: i % 4 === 0 ? null : succeeded ? 200 : 503,
        error: i % 4 === 0 ? 'connect ECONNREFUSED "x"\n' : null,
        response_excerpt: i % 5 === 0 ? null : "ok\u0000?",
        outcome: succeeded ? "succeeded" : "http_error",
      },
      progress: {
        status: succeeded ? "succeeded" : "pending",
        attemptsCount: 1,
        firstAttemptAt: started,
        lastAttemptAt: started,
        nextAttemptAt: succeeded ? null : at(i * 1_777 + 5_000),
        succeededAt: succeeded ? at(i * 1_777 + 3) : null,
      },
    });
  }
  const expected = (attempts: RecordedFirstAttempt[]): string =>
    JSON.stringify(
      // The flat row the other batched writes build, from the same field lists.
      attempts.map(({ event: e, attempt: a, progress: p }) => ({
        id: e.event_id,
        organization_id: e.organization_id,
        event_type: e.event_type,
        occurred_at: e.occurred_at,
        ...progressFields(p),
        ...attemptFields(a),
      })),
    );
  t.equal(firstAttemptsJson(rows), expected(rows));
  t.equal(firstAttemptsJson(rows.slice(0, 1)), expected(rows.slice(0, 1)));
  t.equal(firstAttemptsJson([]), "[]");
  t.end();
});

t.test("a counter's bound series counts into the same series as inc with those labels", async (t) => {
  const registry = metricsRegistry();
  const c = registry.counter("x_total", "X");
  const ok = c.series({ outcome: "succeeded" });
  const h = registry.histogram("lag_seconds", "Lag", [1]);
  t.equal(
    await registry.render(),
    "# HELP x_total X\n# TYPE x_total counter\n# HELP lag_seconds Lag\n# TYPE lag_seconds histogram\n",
  );
  c.inc({ outcome: "succeeded" });
  ok.inc();
  ok.inc(2);
  c.inc({ outcome: "timeout" });
  c.inc();
  h.observe(0.5);
  h.observe(2, {});
  const text = await registry.render();
  t.match(text, 'x_total{outcome="succeeded"} 4\n');
  t.match(text, 'x_total{outcome="timeout"} 1\n');
  t.match(text, "x_total 1\n");
  t.match(
    text,
    'lag_seconds_bucket{le="1"} 1\nlag_seconds_bucket{le="+Inf"} 2\nlag_seconds_sum 2.5\nlag_seconds_count 2',
  );
  // A series bound before any other increment starts it.
  const fresh = registry.counter("y_total", "Y").series({ result: "failed" });
  fresh.inc();
  t.match(await registry.render(), 'y_total{result="failed"} 1\n');
});

t.test("a JetStream message's delivery count, read from its reply subject (the formats JsMsg#info parses)", (t) => {
  const subjects: Array<[string, number]> = [
    // $JS.ACK.<stream>.<consumer>.<count>.<stream seq>.<delivery seq>.<timestamp>.<pending>
    ["$JS.ACK.LAUREL_EVENTS.laurel-webhooks.1.2041.2041.1763800000000000000.17", 1],
    ["$JS.ACK.LAUREL_EVENTS.laurel-webhooks.12.7.9.1763800000000000000.0", 12],
    // $JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<count>.<stream seq>.<delivery seq>.<timestamp>.<pending>.<random>
    ["$JS.ACK._.ACCOUNTHASH.LAUREL_EVENTS.laurel-webhooks.3.2041.2041.1763800000000000000.17.RANDOM", 3],
    ["$JS.ACK.dom.ACCOUNTHASH.LAUREL_EVENTS.laurel-webhooks.250.1.1.1763800000000000000.0", 250],
    ["$JS.ACK._.ACCOUNTHASH.S.C.4.1.1.1763800000000000000.0.R.future.tokens", 4],
  ];
  const unparsed = {
    get deliveryCount(): number {
      throw new Error("info read");
    },
  } as never;
  for (const [reply, count] of subjects) t.equal(deliveryCountOf({ reply, info: unparsed } as never), count, reply);
  const odd = { reply: "$JS.ACK.too.short", info: { deliveryCount: 5 } };
  t.equal(deliveryCountOf(odd as never), 5, "anything else is left to info (which throws for it)");
  t.end();
});
