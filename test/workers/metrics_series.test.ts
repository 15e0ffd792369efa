import t from "tap";
import { metricsRegistry } from "../../adapters/metrics/mod.ts";

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
