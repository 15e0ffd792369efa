import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { healthOf } from "../../apps/health.ts";
import { startLaurel } from "../support/laurel.ts";
import { startWorkerBeside } from "../support/processes.ts";
import { startTestNats } from "../support/services.ts";

interface Report {
  status: string;
  checks: Record<string, boolean>;
  required: string[];
  accepting: boolean;
}

const probe = async (url: string): Promise<{ status: number; body: Report }> => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Report };
};

/**
 * An API process needs only its database: with NATS gone it stays healthy and ready (a balancer
 * keeps it), and says NATS is down. A worker needs both, so it turns unhealthy. Both export every
 * dependency's state in /metrics.
 */
t.test("health and readiness of an API process and a worker while NATS is away", async (t) => {
  const nats = await startTestNats();
  let natsStopped = false;
  t.teardown(async () => {
    if (!natsStopped) await nats.stop();
  });
  const laurel = await startLaurel({ nats });
  t.teardown(() => laurel.close());
  const metricsPort = await freePort();
  const worker = await startWorkerBeside(laurel, { METRICS_PORT: String(metricsPort) });
  t.teardown(() => worker.stop());
  const workerOrigin = `http://127.0.0.1:${metricsPort}`;
  for (let i = 0; i < 100 && (await fetch(`${workerOrigin}/healthz`).catch(() => null)) === null; i++)
    await new Promise((r) => setTimeout(r, 100));

  const api = await probe(`${laurel.origin}/healthz`);
  t.equal(api.status, 200, "the API is healthy");
  t.same(api.body.checks, { database: true, nats: true }, "and reports both dependencies");
  t.same(api.body.required, ["database"], "needing only the database");
  const ready = await probe(`${laurel.origin}/readyz`);
  t.equal(ready.status, 200, "and ready");
  t.equal(ready.body.accepting, true);
  t.equal((await probe(`${workerOrigin}/healthz`)).status, 200, "the worker is healthy");
  t.equal((await probe(`${workerOrigin}/readyz`)).status, 200, "and ready");
  const metrics = await (await fetch(`${laurel.adminOrigin}/metrics`)).text();
  t.match(metrics, /laurel_dependency_up\{dependency="database",required="true"\} 1/);
  t.match(metrics, /laurel_dependency_up\{dependency="nats",required="false"\} 1/);
  t.match(metrics, /laurel_ready 1/);

  await nats.stop();
  natsStopped = true;
  const apiNoNats = await probe(`${laurel.origin}/healthz`);
  t.equal(apiNoNats.status, 200, "without NATS the API stays healthy");
  t.equal(apiNoNats.body.checks.nats, false, "and says NATS is down");
  t.equal((await probe(`${laurel.origin}/readyz`)).status, 200, "and ready for traffic");
  t.match(
    await (await fetch(`${laurel.adminOrigin}/metrics`)).text(),
    /laurel_dependency_up\{dependency="nats",required="false"\} 0/,
  );
  const workerNoNats = await probe(`${workerOrigin}/healthz`);
  t.equal(workerNoNats.status, 503, "the worker cannot do its work without NATS");
  t.same(workerNoNats.body.checks, { database: true, nats: false });
  t.equal((await probe(`${workerOrigin}/readyz`)).status, 503, "nor is it ready");
  const workerMetrics = await (await fetch(`${workerOrigin}/metrics`)).text();
  t.match(workerMetrics, /laurel_dependency_up\{dependency="nats",required="true"\} 0/);
  t.equal((await fetch(`${workerOrigin}/nothing`)).status, 404);
});

t.test("readiness follows the process's start and shutdown; a check that hangs counts as down", async (t) => {
  const health = healthOf(
    {
      database: async () => true,
      nats: () => new Promise<boolean>(() => undefined),
      mail: async () => Promise.reject(new Error("x")),
    },
    ["database"],
  );
  t.equal((await health.ready()).status, "unavailable", "not ready before it serves");
  health.setAccepting(true);
  const ready = await health.ready();
  t.equal(ready.status, "ok", "ready once serving");
  t.same(ready.checks, { database: true, nats: false, mail: false }, "a hanging check is down after a second");
  health.setAccepting(false);
  t.equal((await health.ready()).status, "unavailable", "not ready once shutting down");
  t.equal((await health.health()).status, "ok", "while still healthy");
});
