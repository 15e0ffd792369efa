// Many HTTPS webhook receivers in one process, for ops/bench/real_fairness.ts: the workers key a
// destination by scheme://host:port, so each organization gets a port of its own here. Every port
// remembers when each event id first arrived (wall-clock ms, sub-millisecond), so the benchmark can
// measure commit-to-receipt latency from another process on the same machine.
//
// Env: TLS_KEY_FILE, TLS_CERT_FILE, CONTROL_PORT (always listening: control requests, and POSTs
// answered 200 at once like any healthy receiver), PORTS: comma-separated `port:kind`, kind one of
//   ok     answers 200 at once;
//   slow   answers 200 after SLOW_MS (default 10000);
//   closed not listening (connections refused) until POST /open on the control port.
// Control: GET /count -> {"first": distinct ids, "byPort": {port: distinct ids}} (cheap, for polling);
// GET /stats -> {"first": {id: ms}}; POST /reset (forgets every receipt); POST /open (the closed
// ports start listening; answers once they all listen).
// Prints "listening <control port>" once every port that should listen does.

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";

const key = readFileSync(process.env.TLS_KEY_FILE ?? "", "utf8");
const cert = readFileSync(process.env.TLS_CERT_FILE ?? "", "utf8");
const controlPort = Number(process.env.CONTROL_PORT ?? "0");
const slowMs = Number(process.env.SLOW_MS ?? "10000");
const ports = (process.env.PORTS ?? "")
  .split(",")
  .filter(Boolean)
  .map((p) => {
    const [port, kind] = p.split(":");
    if (kind !== "ok" && kind !== "slow" && kind !== "closed") throw new Error(`unknown receiver kind in ${p}`);
    return { port: Number(port), kind };
  });
const now = (): number => performance.timeOrigin + performance.now();

let first = new Map<string, number>();
let byPort = new Map<number, number>();

const receiver = (port: number, answerAfterMs: number): Server => {
  const server = createServer({ key, cert }, (req, res) => {
    if (port === controlPort && control(req.method, req.url, res)) return;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: string }).id;
        if (typeof id === "string" && !first.has(id)) {
          first.set(id, at);
          byPort.set(port, (byPort.get(port) ?? 0) + 1);
        }
      } catch {
        // not JSON: not counted
      }
      const answer = () => res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  // A slow answer must not be cut by the server's own request timeout.
  server.requestTimeout = 0;
  return server;
};

const listen = (server: Server, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });

const closed = ports.filter((p) => p.kind === "closed");
let opened = false;

/** True when the request was a control request (and is answered). */
const control = (
  method: string | undefined,
  url: string | undefined,
  res: import("node:http").ServerResponse,
): boolean => {
  const json = (body: unknown): void => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (method === "GET" && url === "/count") {
    json({ first: first.size, byPort: Object.fromEntries(byPort) });
    return true;
  }
  if (method === "GET" && url === "/stats") {
    json({ first: Object.fromEntries(first) });
    return true;
  }
  if (method === "POST" && url === "/reset") {
    first = new Map();
    byPort = new Map();
    res.writeHead(204).end();
    return true;
  }
  if (method === "POST" && url === "/open") {
    const open = opened ? Promise.resolve() : Promise.all(closed.map((p) => listen(receiver(p.port, 0), p.port)));
    opened = true;
    open.then(
      () => res.writeHead(204).end(),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
    return true;
  }
  return false;
};

await listen(receiver(controlPort, 0), controlPort);
await Promise.all(
  ports.filter((p) => p.kind !== "closed").map((p) => listen(receiver(p.port, p.kind === "slow" ? slowMs : 0), p.port)),
);
process.stdout.write(`listening ${controlPort}\n`);
