import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createServer, type Server } from "node:https";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import type { NatsConnection } from "../../adapters/bus/mod.ts";
import { loadServerKeys, nodeSecretBox, uuidv7 } from "../../adapters/crypto/mod.ts";
import { appendEvents, type Database } from "../../adapters/db/mod.ts";
import { metricsRegistry } from "../../adapters/metrics/mod.ts";
import { readConfig } from "../../apps/config.ts";
import {
  type PipelineOverrides,
  pipelineMetrics,
  startWebhookPipeline,
  type WebhookPipeline,
} from "../../apps/webhook_wiring.ts";
import type { BadgeStandardShape } from "../../core/badges/mod.ts";
import { badgeEvent, type EventRecord, type EventType } from "../../core/events/mod.ts";
import { basic, startLaurel, type TestLaurel, trpcMutation } from "./laurel.ts";
import { childEnv } from "./processes.ts";
import { tempDir } from "./services.ts";

/** A CA and a server certificate for `localhost` / 127.0.0.1, made with the openssl CLI for this run. */
export interface TestCa {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

export const makeTestCa = (): TestCa => {
  const dir = tempDir("laurel-ca-");
  const p = (f: string): string => join(dir.path, f);
  const run = (args: string[]): void => {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    p("ca.key"),
    "-out",
    p("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=Laurel Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run(["req", ...ec, "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost"]);
  writeFileSync(
    p("ext.cnf"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  run([
    "x509",
    "-req",
    "-in",
    p("server.csr"),
    "-CA",
    p("ca.pem"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-out",
    p("server.pem"),
    "-days",
    "2",
    "-extfile",
    p("ext.cnf"),
  ]);
  return {
    dir: dir.path,
    caFile: p("ca.pem"),
    key: readFileSync(p("server.key"), "utf8"),
    cert: readFileSync(p("server.pem"), "utf8"),
    remove: dir.remove,
  };
};

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; organization_id: string; event_type: string; occurred_at: string; delivered_at: string };
  at: number;
}

/** What the receiver answers; `delayMs` holds the answer back (a timeout when long enough). */
export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  port: number;
  /** `https://localhost:<port>/hooks` */
  url: string;
  received: ReceivedDelivery[];
  /** Decides each answer (default 200). */
  answer: (d: ReceivedDelivery) => Answer;
  /** Every delivery so far (or those given) verifies with one of `secrets` (standardwebhooks); returns the failures. */
  verify(secrets: string[], deliveries?: ReceivedDelivery[]): string[];
  byEvent(): Map<string, ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** A real HTTPS webhook receiver with a certificate of the test CA. */
export const startReceiver = async (ca: TestCa): Promise<Receiver> => {
  const received: ReceivedDelivery[] = [];
  let server: Server | undefined;
  const receiver: Receiver = {
    port: 0,
    url: "",
    received,
    answer: () => ({ status: 200 }),
    verify(secrets, deliveries = received) {
      const failures: string[] = [];
      for (const d of deliveries) {
        const ok = secrets.some((s) => {
          try {
            const wh = new Webhook(s);
            const ts = Number(d.headers["webhook-timestamp"]);
            // The signature is checked with the package; the timestamp tolerance only when the
            // attempt ran on the real clock (fake-clock tests sign far in the future).
            if (Math.abs(ts * 1000 - Date.now()) < 5 * 60_000) {
              wh.verify(d.body, d.headers as Record<string, string>);
            } else {
              const expected = wh.sign(String(d.headers["webhook-id"]), new Date(ts * 1000), d.body).split(",")[1];
              const presented = String(d.headers["webhook-signature"])
                .split(" ")
                .map((v) => v.split(",")[1]);
              if (!presented.includes(expected)) throw new Error("no matching signature");
            }
            return true;
          } catch {
            return false;
          }
        });
        if (!ok) failures.push(`${d.headers["webhook-id"]}: signature does not verify`);
        if (d.headers["webhook-id"] !== d.json.id) failures.push(`${d.json.id}: webhook-id ${d.headers["webhook-id"]}`);
      }
      return failures;
    },
    byEvent() {
      const map = new Map<string, ReceivedDelivery[]>();
      for (const d of received) map.set(d.json.id, [...(map.get(d.json.id) ?? []), d]);
      return map;
    },
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  server = createServer({ key: ca.key, cert: ca.cert, keepAliveTimeout: 10_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: ReceivedDelivery["json"];
      try {
        json = JSON.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      const delivery: ReceivedDelivery = { headers: req.headers, body, json, at: Date.now() };
      received.push(delivery);
      const a = receiver.answer(delivery);
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(a.status, a.headers ?? {}).end(a.body ?? "");
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  receiver.port = typeof address === "object" && address ? address.port : 0;
  receiver.url = `https://localhost:${receiver.port}/hooks`;
  return receiver;
};

/** GET of a tRPC query with the admin token. */
export const trpcQuery = async (origin: string, adminToken: string, path: string, input: unknown): Promise<unknown> => {
  const res = await fetch(`${origin}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  if (!res.ok || !body.result) throw new Error(`tRPC ${path} failed: ${res.status} ${JSON.stringify(body.error)}`);
  return body.result.data;
};

/** The status and error of a tRPC call expected to fail. */
export const trpcFailure = async (
  origin: string,
  adminToken: string,
  path: string,
  input: unknown,
): Promise<{
  status: number;
  body: { error: { message: string; data: { code: string; errors: Array<{ field: string; message: string }> } } };
}> => {
  const res = await fetch(`${origin}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: (await res.json()) as never };
};

export interface WebhookOrg {
  id: string;
  token: string;
  auth: string;
  applicationId: number;
  secret: string;
}

/**
 * An organization that receives webhooks (every delivery condition met): an OAuth application with data services,
 * a webhook_url, the chosen kinds, and its signing secret.
 */
export const webhookOrganization = async (
  laurel: TestLaurel,
  opts: { url: string | null; events?: "all" | string[]; dataServices?: boolean; name?: string },
): Promise<WebhookOrg> => {
  const { organization, authorization_token } = await laurel.createOrganization(opts.name ?? "Hooked");
  const auth = basic(authorization_token.token);
  const res = await fetch(`${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "Data services" }),
  });
  const app = ((await res.json()) as { data: { id: number } }).data;
  const admin = laurel.server.adminToken;
  if (opts.dataServices !== false) {
    await trpcMutation(laurel.adminOrigin, admin, "oauthApplications.setDataServices", {
      organization_id: organization.id,
      application_id: app.id,
      enabled: true,
    });
  }
  await trpcMutation(laurel.adminOrigin, admin, "webhooks.update", {
    organization_id: organization.id,
    webhook_url: opts.url,
    event_types: opts.events ?? "all",
  });
  const { secret } = (await trpcMutation(laurel.adminOrigin, admin, "webhooks.secret", {
    organization_id: organization.id,
  })) as {
    secret: string;
  };
  return { id: organization.id, token: authorization_token.token, auth, applicationId: app.id, secret };
};

export const BADGE: BadgeStandardShape = {
  id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  issued_to: "Ada Lovelace",
  issued_to_first_name: "Ada",
  issued_to_middle_name: null,
  issued_to_last_name: "Lovelace",
  issued_at: "2024-01-01T00:00:00.000Z",
  issued_at_date: "2024-01-01",
  expires_at: null,
  expires_at_date: null,
  state: "accepted",
  public: true,
  badge_url: "https://laurel.example/badges/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  badge_template: {
    id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
    image: null,
    image_url: null,
    description: "Knows Rust",
    name: "Rust",
    skills: ["rust"],
  },
  issuer: { name: "Acme", image_url: null, authorized_issuer: null },
};

/** Records `n` badge events in one transaction, as the badges feature does (the outbox). */
export const recordEvents = async (
  db: Database,
  organizationId: string,
  n: number,
  kind: EventType & `badge.${string}` = "badge.created",
  /** When they happened (now by default). */
  at?: Date,
): Promise<EventRecord[]> => {
  const events = Array.from({ length: n }, () =>
    badgeEvent(kind as "badge.created", BADGE, {
      id: uuidv7(),
      organization_id: organizationId,
      occurred_at: at ?? new Date(),
    }),
  );
  await db.transaction((tx) => appendEvents(tx, events));
  return events;
};

/**
 * Events of one organization as the code before migration 032 appended them (for tests of earlier migrations) (its counter, its
 * pending mark without a time, the events numbered from the counter); answers their ids.
 */
export const appendBefore032 = async (
  db: Database,
  organizationId: string,
  n: number,
  at = new Date(),
): Promise<string[]> => {
  const ids = Array.from({ length: n }, () => uuidv7());
  await db.run(
    `with c as (
       insert into event_counts (organization_id, total) values (?::uuid, ?::int)
       on conflict (organization_id) do update set total = event_counts.total + excluded.total returning total
     ), p as (insert into event_relay_pending (organization_id) values (?::uuid) on conflict do nothing)
     insert into events (id, organization_id, event_type, occurred_at, detail, seq)
     select i.id, ?::uuid, 'badge.created', ?::timestamptz, '{}'::jsonb, c.total - ?::int + i.n
     from c, unnest(?::uuid[]) with ordinality as i(id, n)`,
    [organizationId, n, organizationId, organizationId, at, n, ids],
  );
  return ids;
};

export const waitFor = async <T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  everyMs = 25,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
};

/** Webhook settings of a test pipeline, as environment variables. */
export const webhookEnv = (ca: TestCa, more: Record<string, string> = {}): Record<string, string> => ({
  WEBHOOK_CA_FILE: ca.caFile,
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
  WEBHOOK_TIMEOUT_MS: "1500",
  WEBHOOK_ACK_WAIT_MS: "4000",
  WEBHOOK_SCHEDULER_INTERVAL_MS: "50",
  ...more,
});

/**
 * The relay, scheduler and worker in this process, on `laurel`'s database and NATS, with the same
 * keys as its API server.
 */
export const startTestPipeline = async (
  laurel: { db: Database; nc: NatsConnection; dataDir: string },
  env: Record<string, string>,
  overrides: PipelineOverrides = {},
): Promise<WebhookPipeline & { metrics: ReturnType<typeof metricsRegistry> }> => {
  const registry = metricsRegistry();
  const keys = loadServerKeys({}, laurel.dataDir);
  const pipeline = await startWebhookPipeline(
    laurel.db,
    laurel.nc,
    readConfig(env).webhooks,
    { secrets: nodeSecretBox(keys), busKey: keys.busKey, log: quietLog, metrics: pipelineMetrics(registry) },
    { targetCacheMs: 0, relay: { fastPollMs: 20, pollMs: 200 }, ...overrides },
  );
  return { ...pipeline, metrics: registry };
};

const errors: unknown[] = [];
export const quietLog = {
  info: () => {},
  warn: (o: object, m: string) => {
    if (process.env.TEST_VERBOSE) console.error(m, o);
  },
  error: (o: object, m: string) => {
    errors.push(o);
    if (process.env.TEST_VERBOSE) console.error(m, o);
  },
};

export const newId = (): string => randomUUID();

export interface SpawnedWorker {
  child: import("node:child_process").ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `apps/worker.ts` as its own OS process, as in production; resolves once it is consuming. */
export const spawnWorker = async (env: Record<string, string>): Promise<SpawnedWorker> => {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["apps/worker.ts"], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: childEnv({ LOG_LEVEL: "info", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  await waitFor(
    "the worker to start",
    () => {
      if (child.exitCode !== null) throw new Error(`worker exited early:\n${output}`);
      return output.includes("webhook worker ready");
    },
    30_000,
  );
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
};

/**
 * Laurel, an HTTPS receiver answering 200 behind a test CA, and the webhook pipeline, all stopped
 * when the test ends: what a test of one kind of delivered event starts with.
 */
export const startDeliveringLaurel = async (t: { teardown(fn: () => Promise<void>): void }) => {
  const ca = makeTestCa();
  const laurel = await startLaurel();
  const receiver = await startReceiver(ca);
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  t.teardown(async () => {
    await pipeline.stop();
    await receiver.close();
    await laurel.close();
    ca.remove();
  });
  receiver.answer = () => ({ status: 200, body: "ok" });
  return { laurel, receiver };
};
