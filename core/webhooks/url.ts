import { type FieldError, fail, ok, type Result, validationFailed } from "../errors/mod.ts";
import { type Cidr, isForbiddenAddress, parseIp } from "./addresses.ts";

/**
 * Webhook URLs are parsed here by hand: core has no `URL` (it type-checks with ES lib only). The
 * grammar accepted is a strict subset of what WHATWG parsers read the same way, so the address the
 * HTTP client connects to is the one validated.
 */

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** The parts of an accepted URL; `host` is lowercased, IPv6 without brackets. */
export interface WebhookUrlParts {
  scheme: string;
  host: string;
  port: number;
  /** Path and query, `/` at least. */
  pathAndQuery: string;
}

const DEFAULT_PORTS: Record<string, number> = { https: 443, http: 80 };
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
// A WHATWG parser reads a host whose last label is numeric as IPv4 (`2130706433`, `0x7f.1`).
const NUMERIC_LAST_LABEL = /(^|\.)(0x[0-9a-f]*|[0-9]+)\.?$/;

/** The URL's parts, or what is wrong with it (a field error's message). */
const parse = (url: string): Result<WebhookUrlParts, string> => {
  if (url.length === 0) return fail("is required");
  if (url.length > WEBHOOK_URL_MAX_LENGTH) {
    return fail(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  }
  // Whitespace, control characters and non-ASCII are refused rather than silently re-encoded.
  if (/[^\x21-\x7e]/.test(url)) return fail("must not contain spaces, control or non-ASCII characters");
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^#]*)(#.*)?$/.exec(url);
  if (!m) return fail("must be an absolute URL such as https://example.com/webhooks");
  const scheme = (m[1] as string).toLowerCase();
  const authority = m[2] as string;
  const rest = m[3] as string;
  if (m[4] !== undefined) return fail("must not contain a fragment (#...)");
  if (authority.includes("@")) return fail("must not contain credentials");
  if (rest.includes("\\")) return fail("must not contain backslashes");

  let hostText: string;
  let portText: string | undefined;
  const bracket = /^\[([^\]]*)\](?::(.*))?$/.exec(authority);
  if (bracket) {
    hostText = bracket[1] as string;
    portText = bracket[2];
    const ip = parseIp(hostText);
    if (ip?.version !== 6 || hostText.includes("%")) return fail("has an invalid IPv6 host");
  } else {
    const colon = authority.lastIndexOf(":");
    hostText = colon >= 0 ? authority.slice(0, colon) : authority;
    portText = colon >= 0 ? authority.slice(colon + 1) : undefined;
  }
  const host = hostText.toLowerCase();
  if (host === "") return fail("must name a host");
  if (!bracket) {
    const ip = parseIp(host);
    if (!ip) {
      const name = host.endsWith(".") ? host.slice(0, -1) : host;
      if (NUMERIC_LAST_LABEL.test(name) || name.length > 253 || !name.split(".").every((l) => LABEL.test(l))) {
        return fail("has an invalid host name");
      }
    }
  }
  let port = DEFAULT_PORTS[scheme] ?? 0;
  if (portText !== undefined && portText !== "") {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      return fail("has an invalid port");
    }
    port = Number(portText);
  }
  return ok({ scheme, host, port, pathAndQuery: rest === "" ? "/" : rest });
};

/** The parts of a URL the parser accepts (any scheme), or undefined. */
export const parseWebhookUrl = (url: string): WebhookUrlParts | undefined => {
  const p = parse(url);
  return p.ok ? p.value : undefined;
};

/**
 * Field errors for a webhook URL (empty when it is acceptable): HTTPS only, no credentials, no
 * fragment, at most 2048 characters, a valid host. A host written as an IP address is refused when
 * it is private, loopback, link-local... unless it is inside `allowedNetworks`; names are checked
 * again on every delivery against the address actually connected to.
 *
 * @example validateWebhookUrl("http://example.com") // [{ field: "webhook_url", message: "must use https" }]
 */
export const validateWebhookUrl = (
  url: string,
  options: { allowedNetworks?: readonly Cidr[]; field?: string } = {},
): FieldError[] => {
  const field = options.field ?? "webhook_url";
  const p = parse(url);
  if (!p.ok) return [{ field, message: p.error }];
  if (p.value.scheme !== "https") return [{ field, message: "must use https" }];
  if (parseIp(p.value.host) && isForbiddenAddress(p.value.host, options.allowedNetworks ?? [])) {
    return [{ field, message: "must not point to a private, loopback, link-local or reserved address" }];
  }
  return [];
};

/** Throws `validation_failed` with the errors of {@link validateWebhookUrl}. */
export const assertWebhookUrl = (
  url: string,
  options: { allowedNetworks?: readonly Cidr[]; field?: string } = {},
): void => {
  const errors = validateWebhookUrl(url, options);
  if (errors.length > 0) throw validationFailed("Invalid webhook URL", errors);
};

/**
 * The destination whose concurrent requests are capped: `scheme://host:port`, lowercased, default
 * port made explicit, so `https://Example.com/a` and `https://example.com:443/b` share one key.
 * Throws `validation_failed` for a URL that does not parse.
 */
export const destinationKey = (url: string): string => {
  const p = parse(url);
  if (!p.ok) throw validationFailed("Invalid webhook URL", [{ field: "webhook_url", message: p.error }]);
  const { scheme, host, port } = p.value;
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
};

/**
 * Default cap on requests in flight to one destination, per worker process: a few, so one slow
 * receiver holds little; enough that a healthy one keeps up with a busy organization (at 5 ms a
 * request, 8 at once carry 1,600 events a second).
 */
export const DEFAULT_MAX_CONCURRENT_PER_DESTINATION = 8;
