import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent } from "undici";
import { type AttemptRequest, type Cidr, type PostResult, RESPONSE_EXCERPT_BYTES } from "../../core/webhooks/mod.ts";
import { boundedCache } from "../cache/mod.ts";
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

/** An attempt as its timeout slice holds it: `expire` does nothing once the attempt settled. */
interface Attempt {
  expire(): void;
}
/** The attempts of one slice still under way: an attempt leaves its slice when it settles. */
type Slice = Set<Attempt>;
/**
 * The one overall timeout of each attempt, kept per short slice of time rather than with a timer of
 * its own: every attempt started in a slice and still under way once `timeoutMs` has passed since
 * the slice began plus the slice's length is aborted, so an attempt gets between `timeoutMs` and
 * `timeoutMs + slice`. One timer per slice, unreferenced. A settled attempt leaves its slice at once,
 * so nothing keeps it (nor the undici request its abort function holds) for the whole timeout: kept,
 * every attempt outlived V8's young generation, and the copying and promoting made scavenges of
 * 8-13 ms in the worker at 500 deliveries/s.
 */
const timeoutSlices = (timeoutMs: number) => {
  const sliceMs = Math.max(1, Math.min(100, Math.floor(timeoutMs / 20)));
  let current: Slice | null = null;
  return {
    /** Puts an attempt in the current slice, and returns the slice to leave when it settles. */
    add(attempt: Attempt): Slice {
      if (!current) {
        const slice: Slice = new Set();
        current = slice;
        setTimeout(() => {
          if (current === slice) current = null;
        }, sliceMs).unref();
        setTimeout(() => {
          for (const a of slice) a.expire();
        }, timeoutMs + sliceMs).unref();
      }
      current.add(attempt);
      return current;
    },
  };
};

/**
 * One attempt as undici's dispatch handler: the response head and the first bytes of its body
 * arrive in its methods. One object per attempt, with no closures (nor their names) built for it.
 */
class PostAttempt implements Attempt {
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
  /** The timeout slice holding this attempt while it is under way. */
  slice: Slice | undefined;
  private readonly resolve: (r: PostResult) => void;

  constructor(resolve: (r: PostResult) => void) {
    this.resolve = resolve;
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
    this.slice?.delete(this);
    this.slice = undefined;
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
    if (rawHeaders) {
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        const name = rawHeaders[i] as Buffer;
        if (name.length === 11 && name.toString("latin1").toLowerCase() === "retry-after") {
          this.retryAfter = (rawHeaders[i + 1] as Buffer).toString("latin1");
          break;
        }
      }
    }
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
  const timeouts = timeoutSlices(options.timeoutMs);
  // `new URL` of the same few webhook URLs on every attempt is wasted work: keep the last ones.
  const targets = boundedCache<{ origin: string; path: string }>({
    maxEntries: 10_000,
    maxBytes: 8 * 1024 * 1024,
    ttlMs: 0,
  });
  const targetOf = (url: string): { origin: string; path: string } => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      targets.set(url, t);
    }
    return t;
  };

  /**
   * One attempt through undici's dispatcher interface: the response head and the first bytes of
   * its body arrive in callbacks, with no response stream, promise or abort signal built per
   * request (the `request()` API builds all three). Redirects are not followed (no redirect
   * handler is installed): a 3xx is the answer.
   */
  const post = (req: AttemptRequest): Promise<PostResult> =>
    new Promise<PostResult>((resolve) => {
      if (!req.url.startsWith("https://")) return resolve({ error: "webhook_url is not https", durationMs: 0 });
      let target: { origin: string; path: string };
      try {
        target = targetOf(req.url);
      } catch (err) {
        return resolve({ error: describe(err), durationMs: 0 });
      }
      // The headers as undici's flat name/value list, in the request's order and the user agent
      // last, as the object spread used to give them (a spread with an extra key costs more than
      // the rest of building the request).
      const headers: string[] = [];
      let agentSet = false;
      for (const name in req.headers) {
        if (name === "user-agent") agentSet = true;
        headers.push(name, name === "user-agent" ? userAgent : (req.headers[name] as string));
      }
      if (!agentSet) headers.push("user-agent", userAgent);
      const attempt = new PostAttempt(resolve);
      attempt.slice = timeouts.add(attempt);
      try {
        agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: "POST",
            headers,
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
