import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import type { Cidr } from "../../core/webhooks/mod.ts";
import type { ExternalDocuments, Fetched } from "../../core/workforce/mod.ts";
import { BlockedAddressError, guardedConnector } from "./guarded_connector.ts";

export interface GuardedFetchOptions {
  /** The webhook allowlist (`WEBHOOK_ALLOWED_NETWORKS`): the same rule for every outbound request. */
  allowedNetworks: readonly Cidr[];
  /** `WEBHOOK_CA_FILE`: private CAs trusted beside the system roots. */
  caFile?: string | undefined;
  /** One whole GET, redirects included. */
  timeoutMs: number;
  /** Larger answers are not documents of a badge. */
  maxBytes?: number;
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs of other issuers' Open Badges documents, under the webhook SSRF rule: every connection
 * (the first and each redirect's) goes through the guarded connector, so a public name that
 * redirects to, or resolves to, a private address is refused before anything is sent there.
 */
export const guardedDocuments = (options: GuardedFetchOptions): ExternalDocuments & { close(): Promise<void> } => {
  const ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, "utf8")] : undefined;
  const agent = new Agent({
    connect: guardedConnector({ allowed: options.allowedNetworks, ca, connectTimeoutMs: options.timeoutMs }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 3;

  const body = async (stream: AsyncIterable<Buffer>): Promise<string | null> => {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > maxBytes) return null;
      parts.push(chunk);
    }
    return Buffer.concat(parts).toString("utf8");
  };

  const getJson = async (start: string): Promise<Fetched> => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    let url = start;
    try {
      for (let hop = 0; hop <= maxRedirects; hop++) {
        if (!/^https?:\/\//i.test(url)) return { outcome: "unreachable", status: null };
        const res = await request(url, {
          dispatcher: agent,
          method: "GET",
          headers: {
            accept: "application/ld+json, application/json;q=0.9, */*;q=0.1",
            "user-agent": "Laurel-Verifier/1",
          },
          signal,
        });
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode) && typeof location === "string") {
          await res.body.dump();
          url = new URL(location, url).toString();
          continue;
        }
        const text = await body(res.body);
        if (text === null) {
          res.body.destroy();
          return { outcome: "not_json", status: res.statusCode };
        }
        try {
          return { outcome: "answered", status: res.statusCode, json: JSON.parse(text) as unknown };
        } catch {
          return { outcome: "not_json", status: res.statusCode };
        }
      }
      return { outcome: "unreachable", status: null };
    } catch (err) {
      const blocked =
        err instanceof BlockedAddressError || (err as { cause?: unknown }).cause instanceof BlockedAddressError;
      // Anything else (refused, reset, timed out, a bad certificate) is the same to the earner.
      return { outcome: blocked ? "blocked_address" : "unreachable", status: null };
    }
  };

  return { getJson, close: () => agent.close() };
};
