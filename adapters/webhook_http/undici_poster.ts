import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, request, errors as undiciErrors } from "undici";
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

  const post = async (req: AttemptRequest): Promise<PostResult> => {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    if (!req.url.startsWith("https://")) return { error: "webhook_url is not https", durationMs: 0 };
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      const res = await request(req.url, {
        method: "POST",
        headers: { ...req.headers, "user-agent": userAgent },
        body: req.body,
        dispatcher: agent,
        signal,
        maxRedirections: 0,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        read += chunk.length;
        if (kept < RESPONSE_EXCERPT_BYTES) {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
          kept += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - kept);
        }
        if (read > DRAIN_LIMIT) {
          res.body.destroy();
          break;
        }
      }
      const retryAfter = res.headers["retry-after"];
      return {
        status: res.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        // A cut UTF-8 sequence decodes to U+FFFD; core trims to whole characters.
        body: kept > 0 ? Buffer.concat(chunks).toString("utf8") : null,
        durationMs: elapsed(),
      };
    } catch (err) {
      const blocked = blockedIn(err);
      if (blocked) return { blocked: true, error: blocked.message, durationMs: elapsed() };
      const code = (err as { code?: string }).code;
      if (signal.aborted || (code && TIMEOUT_CODES.has(code)) || err instanceof undiciErrors.RequestAbortedError) {
        return { timedOut: true, durationMs: elapsed() };
      }
      return { error: describe(err), durationMs: elapsed() };
    }
  };

  return { post, close: () => agent.close() };
};
