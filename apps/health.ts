import { createServer, type Server } from "node:http";
import type { MetricsRegistry } from "../adapters/metrics/mod.ts";

/** What `/healthz` and `/readyz` answer: every dependency's state and which ones this process needs. */
export interface HealthReport {
  status: "ok" | "unavailable";
  /** True when the dependency answered within a second. */
  checks: Record<string, boolean>;
  /** The dependencies whose loss makes this process unable to do its work. */
  required: string[];
  /** False while the process starts or shuts down. */
  accepting: boolean;
}

export interface Health {
  /** `/healthz`: can this process do its own work (every required dependency answers)? */
  health(): Promise<HealthReport>;
  /** `/readyz`: should it get work now (healthy, started and not shutting down)? */
  ready(): Promise<HealthReport>;
  /** Set true once the process serves, false when it starts to shut down. */
  setAccepting(accepting: boolean): void;
}

const CHECK_TIMEOUT_MS = 1000;

const within = async (check: () => Promise<boolean>): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check(),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Health from dependency checks. An API process needs only its database (it keeps serving while
 * NATS is away: events wait in the outbox); a worker needs the database and NATS. Every check is
 * reported, needed or not, and exported as `laurel_dependency_up` and `laurel_ready`.
 */
export const healthOf = (
  checks: Record<string, () => Promise<boolean>>,
  required: readonly string[],
  registry?: MetricsRegistry,
): Health => {
  let accepting = false;
  const run = async (): Promise<Record<string, boolean>> => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => within(checks[name] as () => Promise<boolean>)));
    return Object.fromEntries(names.map((name, i) => [name, results[i] as boolean]));
  };
  const report = (states: Record<string, boolean>, needsAccepting: boolean): HealthReport => {
    const ok = required.every((name) => states[name]) && (!needsAccepting || accepting);
    return { status: ok ? "ok" : "unavailable", checks: states, required: [...required], accepting };
  };
  const health: Health = {
    health: async () => report(await run(), false),
    ready: async () => report(await run(), true),
    setAccepting: (value) => {
      accepting = value;
    },
  };
  if (registry) {
    registry.gauge("laurel_dependency_up", "1 when the dependency answers, by dependency and need", async () => {
      const states = await run();
      return Object.entries(states).map(([dependency, up]) => ({
        labels: { dependency, required: String(required.includes(dependency)) },
        value: up ? 1 : 0,
      }));
    });
    registry.gauge("laurel_ready", "1 when this process should get work (as /readyz)", async () => [
      { value: (await health.ready()).status === "ok" ? 1 : 0 },
    ]);
  }
  return health;
};

/** A worker's own listener: `/metrics`, `/healthz` and `/readyz`. */
export const serveOperational = (port: number, host: string, registry: MetricsRegistry, health: Health): Server =>
  createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/metrics") {
      registry.render().then(
        (text) => res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(text),
        () => res.writeHead(503).end(),
      );
    } else if (path === "/healthz" || path === "/readyz") {
      (path === "/healthz" ? health.health() : health.ready()).then((report) =>
        res
          .writeHead(report.status === "ok" ? 200 : 503, {
            "content-type": "application/json",
            "cache-control": "no-store",
          })
          .end(JSON.stringify(report)),
      );
    } else {
      res.writeHead(404).end();
    }
  }).listen(port, host);
