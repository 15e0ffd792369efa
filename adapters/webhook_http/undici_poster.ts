/**
 * HAND-MADE REPLACEMENT of a library path: undici's `request()` (the answer's body as a stream, an
 * `AbortSignal` for the overall timeout), replaced here by `Agent#dispatch` with a handler object
 * of our own (`PostAttempt`) that keeps only the first bytes of the answer.
 *
 * Why it stays: with `request()` in its place, `BENCH_ONLY=webhooks BENCH_PHASES=raw,drain,latency
 * npm run bench` (2-core VM, two runs each way, alternating) had the worker spend 292 and 329 µs of
 * CPU per delivered event against 217 and 212 µs with this file (+45%), and drain 1,137 and 848
 * deliveries/s against 2,235 and 3,125: well past the 10% that justifies a hand-made path
 * (CONTRIBUTING.md).
 *
 * test/workers/webhook_poster.test.ts sends the same requests through this and through
 * `request()` against a real HTTPS receiver, and checks that both give the same results.
 */
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, util } from "undici";
import { type AttemptRequest, type Cidr, type PostResult, RESPONSE_EXCERPT_BYTES } from "../../core/webhooks/mod.ts";
import { BlockedAddressError, guardedConnector } from "./guarded_connector.ts";

export interface WebhookPoster {
  post(request: AttemptRequest): Promise<PostResult>;
  close(): Promise<void>;
}

export interface WebhookPosterOptions {
  /** `WEBHOOK_ALLOWED_NETWORKS`: destinations inside these may be private, loopback... */
  allowedNetworks: readonly Cidr[];
  /** `WEBHOOK_CA_FILE`: a PEM of private CAs trusted beside the system's roots. */
  caFile?: string | undefined;
  /** The whole attempt: connect, send, status line, and the start of the body (default 15 s). */
  timeoutMs: number;
  /** Sockets kept per destination (the worker caps concurrent requests the same). */
  connectionsPerOrigin: number;
  userAgent?: string;
}

/** Bytes of a response read to keep the connection reusable; anything longer closes it. */
const DRAIN_LIMIT = 64 * 1024;

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

const blockedIn = (err: unknown): BlockedAddressError | undefined => {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof BlockedAddressError) return e;
  }
  return undefined;
};

const describe = (err: unknown): string => {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const message = e.cause?.message && e.cause.message !== e.message ? `${e.message}: ${e.cause.message}` : e.message;
  return code ? `${code}: ${message}` : String(message ?? err);
};

class TimeoutError extends Error {
  readonly code = "EWEBHOOKTIMEOUT";
  constructor() {
    super("no complete answer within the timeout");
  }
}

/**
 * One attempt as undici's dispatch handler: the response head and the first bytes of its body
 * arrive in its methods. One object per attempt, with no closures (nor their names) built for it.
 */
class PostAttempt {
  private readonly started = performance.now();
  private status = 0;
  private retryAfter: string | undefined;
  private chunks: Buffer[] = [];
  private kept = 0;
  private read = 0;
  private cut = false;
  private done = false;
  private timedOut = false;
  private abort: ((err?: Error) => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly resolve: (r: PostResult) => void;

  constructor(resolve: (r: PostResult) => void, timeoutMs: number) {
    this.resolve = resolve;
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  elapsed(): number {
    return performance.now() - this.started;
  }

  private answer(): PostResult {
    return {
      status: this.status,
      retryAfter: this.retryAfter,
      // A cut UTF-8 sequence decodes to U+FFFD; core trims to whole characters.
      body: this.kept > 0 ? Buffer.concat(this.chunks).toString("utf8") : null,
      durationMs: this.elapsed(),
    };
  }

  settle(r: PostResult): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.chunks = [];
    this.resolve(r);
  }

  expire(): void {
    if (this.done) return;
    this.timedOut = true;
    this.settle({ timedOut: true, durationMs: this.elapsed() });
    // Not yet on a connection: aborted in onConnect, before anything is sent.
    this.abort?.(new TimeoutError());
  }

  onConnect(abortRequest: (err?: Error) => void): void {
    this.abort = abortRequest;
    if (this.timedOut) abortRequest(new TimeoutError());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode < 200) return true; // 1xx: the answer is still to come
    this.status = statusCode;
    const retryAfter = rawHeaders ? util.parseHeaders(rawHeaders as Buffer[])["retry-after"] : undefined;
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.read += chunk.length;
    if (this.kept < RESPONSE_EXCERPT_BYTES && !this.done) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - this.kept);
      // Copied: undici may reuse the buffer it hands over.
      this.chunks.push(Buffer.from(part));
      this.kept += part.length;
    }
    if (this.read > DRAIN_LIMIT && !this.cut) {
      // Enough read: the answer counts as it is, and the connection is closed.
      this.cut = true;
      this.settle(this.answer());
      this.abort?.(new Error("response body too long; connection closed"));
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.settle(this.answer());
  }

  onError(err: Error): void {
    if (this.cut) return;
    const blocked = blockedIn(err);
    const code = (err as { code?: string }).code;
    if (blocked) this.settle({ blocked: true, error: blocked.message, durationMs: this.elapsed() });
    else if (this.timedOut || (code && TIMEOUT_CODES.has(code))) {
      this.settle({ timedOut: true, durationMs: this.elapsed() });
    } else this.settle({ error: describe(err), durationMs: this.elapsed() });
  }
}

/**
 * HTTPS POSTs of webhook attempts with undici: TLS verified (system roots plus `caFile`), no
 * redirects followed, the SSRF rule on the address actually connected to, one overall timeout, and
 * only the first bytes of the answer kept.
 */
export const undiciWebhookPoster = (options: WebhookPosterOptions): WebhookPoster => {
  const ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, "utf8")] : undefined;
  const agent = new Agent({
    connect: guardedConnector({ allowed: options.allowedNetworks, ca, connectTimeoutMs: options.timeoutMs }),
    connections: options.connectionsPerOrigin,
    pipelining: 1,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
  const userAgent = options.userAgent ?? "Laurel-Webhooks/1";

  /**
   * One attempt through undici's dispatcher interface: the response head and the first bytes of
   * its body arrive in callbacks, with no response stream, promise or abort signal built per
   * request (the `request()` API builds all three). Redirects are not followed (no redirect
   * handler is installed): a 3xx is the answer.
   */
  const post = (req: AttemptRequest): Promise<PostResult> =>
    new Promise<PostResult>((resolve) => {
      if (!req.url.startsWith("https://")) return resolve({ error: "webhook_url is not https", durationMs: 0 });
      let target: URL;
      try {
        target = new URL(req.url);
      } catch (err) {
        return resolve({ error: describe(err), durationMs: 0 });
      }
      const attempt = new PostAttempt(resolve, options.timeoutMs);
      try {
        agent.dispatch(
          {
            origin: target.origin,
            path: `${target.pathname}${target.search}`,
            method: "POST",
            headers: { ...req.headers, "user-agent": userAgent },
            body: req.body,
          },
          attempt,
        );
      } catch (err) {
        // The agent is closed, or the request malformed: nothing was sent.
        attempt.settle({ error: describe(err), durationMs: attempt.elapsed() });
      }
    });

  return { post, close: () => agent.close() };
};
