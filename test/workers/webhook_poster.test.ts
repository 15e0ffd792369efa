import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { rootCertificates } from "node:tls";
import t, { type Test } from "tap";
import { Agent, request } from "undici";
import { guardedConnector } from "../../adapters/webhook_http/guarded_connector.ts";
import { BlockedAddressError, undiciWebhookPoster, type WebhookPoster } from "../../adapters/webhook_http/mod.ts";
import {
  type AttemptRequest,
  type Cidr,
  type PostResult,
  parseAllowedNetworks,
  RESPONSE_EXCERPT_BYTES,
} from "../../core/webhooks/mod.ts";
import { makeTestCa, type TestCa } from "../support/webhooks.ts";

/**
 * The HTTP side of an attempt against a real HTTPS receiver: what the poster sends, and what it
 * makes of each kind of answer (the status, `Retry-After`, the start of the body, a redirect, a
 * timeout, an address the SSRF rule refuses). The poster is a hand-made replacement of undici's
 * `request()`, so every case also runs through `request()` itself, and both must agree.
 */
let ca: TestCa;
let server: Server;
let origin = "";
const seen: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }> = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("ok");

t.before(async () => {
  ca = makeTestCa();
  server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
});
t.teardown(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  ca.remove();
});

const TIMEOUT_MS = 600;
const DRAIN_LIMIT = 64 * 1024;
const USER_AGENT = "Laurel-Webhooks/1";

/**
 * The library path the poster replaces: `request()` on the same guarded agent, an `AbortSignal`
 * for the overall timeout, the body read until the excerpt is kept (and a little more).
 */
const libraryPoster = (allowed: readonly Cidr[]): WebhookPoster => {
  const agent = new Agent({
    connect: guardedConnector({
      allowed,
      ca: [...rootCertificates, readFileSync(ca.caFile, "utf8")],
      connectTimeoutMs: TIMEOUT_MS,
    }),
  });
  const post = async (req: AttemptRequest): Promise<PostResult> => {
    if (!req.url.startsWith("https://")) return { error: "webhook_url is not https", durationMs: 0 };
    const started = performance.now();
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    try {
      const res = await request(req.url, {
        dispatcher: agent,
        method: "POST",
        headers: { ...req.headers, "user-agent": USER_AGENT },
        body: req.body,
        signal,
      });
      const kept: Buffer[] = [];
      let read = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        kept.push(chunk);
        read += chunk.length;
        if (read > DRAIN_LIMIT) break;
      }
      const text = Buffer.concat(kept).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8");
      const retryAfter = res.headers["retry-after"];
      return {
        status: res.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        body: text.length > 0 ? text : null,
        durationMs: performance.now() - started,
      };
    } catch (err) {
      const durationMs = performance.now() - started;
      const cause = (err as { cause?: unknown }).cause;
      const blocked = err instanceof BlockedAddressError ? err : cause instanceof BlockedAddressError ? cause : null;
      if (blocked) return { blocked: true, error: blocked.message, durationMs };
      if (signal.aborted) return { timedOut: true, durationMs };
      return { error: String(err), durationMs };
    }
  };
  return { post, close: () => agent.close() };
};

/** Both paths with the same allowed networks: the hand-made one first. */
const bothPosters = (allowed = "127.0.0.0/8,::1/128"): Array<[string, WebhookPoster]> => {
  const networks = parseAllowedNetworks(allowed).networks;
  return [
    [
      "hand-made",
      undiciWebhookPoster({
        allowedNetworks: networks,
        caFile: ca.caFile,
        timeoutMs: TIMEOUT_MS,
        connectionsPerOrigin: 4,
      }),
    ],
    ["library", libraryPoster(networks)],
  ];
};

/** What both paths must agree on: everything but the wall time and the wording of other errors. */
const outcome = (r: PostResult) => ({
  status: r.status,
  retryAfter: r.retryAfter,
  body: r.body,
  timedOut: r.timedOut === true,
  blocked: r.blocked === true,
  error: r.blocked ? r.error : r.error === undefined ? undefined : "error",
});

/** Posts `req` through both paths and checks they agree; the hand-made path's result. */
const postBoth = async (
  t: Test,
  req: AttemptRequest,
  allowed?: string,
): Promise<{ result: PostResult; seen: typeof seen }> => {
  const results: PostResult[] = [];
  const seenBy: Array<typeof seen> = [];
  for (const [, poster] of bothPosters(allowed)) {
    seen.length = 0;
    try {
      results.push(await poster.post(req));
    } finally {
      await poster.close().catch(() => {});
    }
    seenBy.push([...seen]);
  }
  const [handMade, library] = results as [PostResult, PostResult];
  t.same(outcome(handMade), outcome(library), "the library path gives the same result");
  t.same(seenBy[0], seenBy[1], "and the receiver saw the same requests");
  return { result: handMade, seen: seenBy[0] ?? [] };
};

const attempt = (url = `${origin}/hooks?x=1`): AttemptRequest => ({
  url,
  body: '{"id":"e1"}',
  headers: { "content-type": "application/json", "webhook-id": "e1" },
});

t.test("a 200: the request as built, the status and the body's start", async (t) => {
  answer = (_req, res) => res.end("thanks");
  const { result, seen: got } = await postBoth(t, attempt());
  t.match(result, { status: 200, body: "thanks", retryAfter: undefined });
  t.ok(result.durationMs >= 0 && result.durationMs < TIMEOUT_MS);
  t.equal(got.length, 1);
  t.equal(got[0]?.url, "/hooks?x=1");
  t.equal(got[0]?.body, '{"id":"e1"}');
  t.match(got[0]?.headers, { "content-type": "application/json", "webhook-id": "e1", "user-agent": USER_AGENT });
});

t.test("a refusal with Retry-After", async (t) => {
  answer = (_req, res) => res.writeHead(503, { "retry-after": "30" }).end("busy");
  const { result } = await postBoth(t, attempt());
  t.match(result, { status: 503, retryAfter: "30", body: "busy" });
});

t.test("a redirect is the answer, not followed", async (t) => {
  answer = (_req, res) => res.writeHead(302, { location: `${origin}/elsewhere` }).end();
  const { result, seen: got } = await postBoth(t, attempt());
  t.match(result, { status: 302, body: null });
  t.same(
    got.map((s) => s.url),
    ["/hooks?x=1"],
    "nothing was asked of the redirect's target",
  );
});

t.test("a long body: only its start is kept, and the answer counts at once", async (t) => {
  answer = (_req, res) => {
    res.writeHead(200);
    // More than the poster reads to keep a connection, and never ended.
    res.write("é".repeat(128 * 1024));
  };
  const { result } = await postBoth(t, attempt());
  t.equal(result.status, 200);
  t.equal(Buffer.byteLength(result.body ?? ""), RESPONSE_EXCERPT_BYTES, "the first bytes, as they came");
  t.notOk(result.timedOut);
});

t.test("no answer within the timeout: timed out", async (t) => {
  answer = () => {};
  const { result } = await postBoth(t, attempt());
  t.match(result, { timedOut: true });
  // Node arms a timer from the event loop's time cached at the start of the turn, and the duration
  // is read from performance.now() when the attempt begins later in that turn: on a loaded machine
  // the timer fires up to one long turn "early" by that clock. Half the timeout still tells the
  // overall timeout from an error that comes at once.
  t.ok(result.durationMs >= TIMEOUT_MS / 2, `after the whole timeout (${Math.round(result.durationMs)} ms)`);
});

t.test("a body that never ends within the timeout: timed out", async (t) => {
  answer = (_req, res) => {
    res.writeHead(200);
    res.write("partial");
  };
  const { result } = await postBoth(t, attempt());
  t.match(result, { timedOut: true });
});

t.test("not https: refused before anything is sent", async (t) => {
  const { result, seen: got } = await postBoth(t, attempt(origin.replace("https:", "http:")));
  t.match(result, { error: /not https/ });
  t.equal(got.length, 0);
});

t.test("an address outside the allowed networks: refused before anything is sent", async (t) => {
  const { result, seen: got } = await postBoth(t, attempt(), "");
  t.match(result, { blocked: true, error: /refused to connect to 127\.0\.0\.1/ });
  t.equal(got.length, 0, "the receiver saw nothing");
});
