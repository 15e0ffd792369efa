// µs of CPU per request by component, from a V8 CPU profile of a server under load (the
// per-path tables of docs/benchmarks.md). Samples count only within the busy window: the longest
// run of whole seconds in which the process was busy at least half the time (the load, not the
// start or the setup).
//
// Run: node ops/bench/cpu_components.ts <file.cpuprofile> <requests in the window | rate/s> [from-to]
// (a rate, such as 14111/s, is multiplied by the window's length; `from-to`, in seconds of the
// profile, names the window instead, for a profile of several runs one after another)
// Profiles come from BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" (API server) or
// BENCH_WORKER_NODE_ARGS (webhook workers).

import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

/** First match wins: the component a frame's own time is counted under. */
const COMPONENTS: Array<[string, (f: CallFrame) => boolean]> = [
  ["idle", (f) => f.functionName === "(idle)"],
  ["garbage collection", (f) => f.functionName === "(garbage collector)"],
  [
    "socket writes and reads (kernel)",
    (f) =>
      ["writev", "writeBuffer", "writeUtf8String", "writeLatin1String", "writeAsciiString"].includes(f.functionName) ||
      /stream_base_commons|node:net|tls_wrap|_tls_/.test(f.url),
  ],
  [
    "crypto",
    (f) => /node:internal\/crypto|npm:jose|\/jose\/|adapters\/crypto/.test(f.url) || f.functionName === "signOneShot",
  ],
  [
    "database driver",
    (f) =>
      /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-date|postgres-interval)\/|adapters\/db\//.test(f.url),
  ],
  ["NATS client", (f) => /node_modules\/@nats-io\//.test(f.url)],
  ["rate limit", (f) => /@fastify\/rate-limit|adapters\/rest\/rate_limits/.test(f.url)],
  ["authentication", (f) => /adapters\/rest\/(authenticator|guard)|core\/(auth|credentials)\//.test(f.url)],
  ["serialization", (f) => /fast-json-stringify|fast-uri|JSON/.test(f.url) || f.functionName === "stringify"],
  ["logging", (f) => /node_modules\/(pino|sonic-boom|thread-stream|@pinojs)/.test(f.url)],
  ["HTTP client (webhooks)", (f) => /node_modules\/undici\//.test(f.url)],
  [
    "framework and hooks",
    (f) =>
      /node_modules\/(fastify|@fastify|avvio|find-my-way|light-my-request|helmet|fast-querystring|secure-json-parse)/.test(
        f.url,
      ),
  ],
  ["HTTP parsing and writing (node:http)", (f) => /node:_http|node:http/.test(f.url)],
  ["Laurel's own code", (f) => /\/(core|adapters|workers|apps)\//.test(f.url)],
];

const [file, requestsArg, windowArg] = process.argv.slice(2);
if (!file || !requestsArg) {
  process.stderr.write("usage: node ops/bench/cpu_components.ts <file.cpuprofile> <requests | rate/s> [from-to]\n");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

// Busy share per second, to find the window under load.
const seconds = new Map<number, { busy: number; all: number }>();
let t = profile.startTime;
const at: number[] = [];
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  at.push(t);
  const s = Math.floor((t - profile.startTime) / 1e6);
  const cell = seconds.get(s) ?? { busy: 0, all: 0 };
  cell.all += profile.timeDeltas[i] ?? 0;
  if (byId.get(id)?.callFrame.functionName !== "(idle)") cell.busy += profile.timeDeltas[i] ?? 0;
  seconds.set(s, cell);
});
const busySecond = (s: number): boolean => {
  const c = seconds.get(s);
  return c !== undefined && c.busy > c.all / 2;
};
let from = 0;
let to = 0;
for (let s = 0; s <= Math.max(...seconds.keys()); s++) {
  if (!busySecond(s)) continue;
  let end = s;
  while (busySecond(end + 1)) end++;
  if (end + 1 - s > to - from) [from, to] = [s, end + 1];
  s = end;
}
if (windowArg) [from, to] = windowArg.split("-").map(Number) as [number, number];
const requests = requestsArg.endsWith("/s") ? Number(requestsArg.slice(0, -2)) * (to - from) : Number(requestsArg);

const totals = new Map<string, number>();
let window = 0;
profile.samples.forEach((id, i) => {
  const s = ((at[i] as number) - profile.startTime) / 1e6;
  if (s < from || s >= to) return;
  const dt = profile.timeDeltas[i] ?? 0;
  window += dt;
  const frame = (byId.get(id) as ProfileNode).callFrame;
  const name = COMPONENTS.find(([, test]) => test(frame))?.[0] ?? "other (V8, Node internals)";
  totals.set(name, (totals.get(name) ?? 0) + dt);
});

const busy = window - (totals.get("idle") ?? 0);
process.stdout.write(
  `window ${from}-${to} s of the profile (${(window / 1e6).toFixed(1)} s, ${(busy / 1e6).toFixed(1)} s busy), ` +
    `${requests} requests: ${(busy / requests).toFixed(1)} µs of CPU per request on the main thread\n\n`,
);
process.stdout.write("| component | µs per request | share |\n|---|---|---|\n");
for (const [name, us] of [...totals].filter(([n]) => n !== "idle").sort((a, b) => b[1] - a[1])) {
  process.stdout.write(`| ${name} | ${(us / requests).toFixed(1)} | ${((100 * us) / busy).toFixed(0)}% |\n`);
}
