import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent } from "undici";
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

/** An attempt as its timeout slice holds it: `expire` is dropped once the attempt settled. */
interface Attempt {
  expire: (() => void) | undefined;
}

/**
 * The one overall timeout of each attempt, kept per short slice of time rather than with a timer of
 * its own: every attempt started in a slice is aborted together once `timeoutMs` has passed since
 * the slice began plus the slice's length, so an attempt gets between `timeoutMs` and `timeoutMs +
 * slice`. One timer per slice, unreferenced.
 */
const timeoutSlices = (timeoutMs: number) => {
  const sliceMs = Math.max(1, Math.min(100, Math.floor(timeoutMs / 20)));
  let current: Attempt[] | null = null;
  return {
    add(attempt: Attempt): void {
      if (!current) {
        const slice: Attempt[] = [];
        current = slice;
        setTimeout(() => {
          if (current === slice) current = null;
        }, sliceMs).unref();
        setTimeout(() => {
          for (const a of slice) a.expire?.();
        }, timeoutMs + sliceMs).unref();
      }
      current.push(attempt);
    },
  };
};

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
  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string): { origin: string; path: string } => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      if (targets.size > 10_000) targets.clear();
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
      const started = performance.now();
      const elapsed = (): number => performance.now() - started;
      if (!req.url.startsWith("https://")) return resolve({ error: "webhook_url is not https", durationMs: 0 });
      let target: { origin: string; path: string };
      try {
        target = targetOf(req.url);
      } catch (err) {
        return resolve({ error: describe(err), durationMs: 0 });
      }
      let status = 0;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      let cut = false;
      let done = false;
      let timedOut = false;
      let abort: ((err?: Error) => void) | undefined;
      const attempt: Attempt = {
        expire: () => {
          timedOut = true;
          settle({ timedOut: true, durationMs: elapsed() });
          // Not yet on a connection: aborted in onConnect, before anything is sent.
          abort?.(new TimeoutError());
        },
      };
      const answer = (): PostResult => ({
        status,
        retryAfter,
        // A cut UTF-8 sequence decodes to U+FFFD; core trims to whole characters.
        body: kept > 0 ? Buffer.concat(chunks).toString("utf8") : null,
        durationMs: elapsed(),
      });
      const settle = (r: PostResult): void => {
        if (done) return;
        done = true;
        attempt.expire = undefined;
        resolve(r);
      };
      timeouts.add(attempt);
      try {
        agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: "POST",
            headers: { ...req.headers, "user-agent": userAgent },
            body: req.body,
          },
          {
            onConnect(abortRequest) {
              abort = abortRequest;
              if (timedOut) abortRequest(new TimeoutError());
            },
            onHeaders(statusCode, rawHeaders) {
              if (statusCode < 200) return true; // 1xx: the answer is still to come
              status = statusCode;
              for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
                const name = rawHeaders[i] as Buffer;
                if (name.length === 11 && name.toString("latin1").toLowerCase() === "retry-after") {
                  retryAfter = (rawHeaders[i + 1] as Buffer).toString("latin1");
                  break;
                }
              }
              return true;
            },
            onData(chunk) {
              read += chunk.length;
              if (kept < RESPONSE_EXCERPT_BYTES) {
                const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
                // Copied: undici may reuse the buffer it hands over.
                chunks.push(Buffer.from(part));
                kept += part.length;
              }
              if (read > DRAIN_LIMIT && !cut) {
                // Enough read: the answer counts as it is, and the connection is closed.
                cut = true;
                settle(answer());
                abort?.(new Error("response body too long; connection closed"));
                return false;
              }
              return true;
            },
            onComplete() {
              settle(answer());
            },
            onError(err) {
              if (cut) return;
              const blocked = blockedIn(err);
              if (blocked) return settle({ blocked: true, error: blocked.message, durationMs: elapsed() });
              const code = (err as { code?: string }).code;
              if (timedOut || (code && TIMEOUT_CODES.has(code))) {
                return settle({ timedOut: true, durationMs: elapsed() });
              }
              settle({ error: describe(err), durationMs: elapsed() });
            },
          },
        );
      } catch (err) {
        // The agent is closed, or the request malformed: nothing was sent.
        settle({ error: describe(err), durationMs: elapsed() });
      }
    });

  return { post, close: () => agent.close() };
};
