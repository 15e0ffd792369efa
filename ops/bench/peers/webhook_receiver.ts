// A bare HTTPS webhook receiver for ops/bench/webhooks.ts: answers every POST with 200 "ok" and
// remembers when each event id first arrived (wall-clock ms, sub-millisecond), so the benchmark can
// measure commit-to-receipt latency from another process on the same machine.
// Env: PORT, TLS_KEY_FILE, TLS_CERT_FILE. GET /stats -> {"received": n, "first": {id: ms}};
// GET /count -> {"received": n, "first": distinct ids} (cheap: polled while a run goes on); POST /reset;
// POST /down (every delivery answered 503, not counted) and POST /up (back to 200).
// Prints "listening <port>" when ready.

import { readFileSync } from "node:fs";
import { createServer } from "node:https";

const port = Number(process.env.PORT ?? "0");
const key = readFileSync(process.env.TLS_KEY_FILE ?? "", "utf8");
const cert = readFileSync(process.env.TLS_CERT_FILE ?? "", "utf8");
const now = (): number => performance.timeOrigin + performance.now();

let received = 0;
let first = new Map<string, number>();
let down = false;

const server = createServer({ key, cert }, (req, res) => {
  if (req.method === "GET" && req.url === "/count") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ received, first: first.size }));
    return;
  }
  if (req.method === "GET" && req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ received, first: Object.fromEntries(first) }));
    return;
  }
  if (req.method === "POST" && req.url === "/reset") {
    received = 0;
    first = new Map();
    res.writeHead(204).end();
    return;
  }
  if (req.method === "POST" && (req.url === "/down" || req.url === "/up")) {
    down = req.url === "/down";
    res.writeHead(204).end();
    return;
  }
  if (down) {
    req.resume();
    req.on("end", () => res.writeHead(503, { "content-type": "text/plain" }).end("down"));
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = now();
    received++;
    try {
      const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: string }).id;
      if (typeof id === "string" && !first.has(id)) first.set(id, at);
    } catch {
      // not JSON: counted only
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`listening ${port}\n`));
