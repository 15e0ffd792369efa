import { type FieldError, validationFailed } from "../errors/mod.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

interface ParsedUri {
  scheme: string;
  userinfo: boolean;
  host: string;
  port: string;
  rest: string;
  fragment: boolean;
}

// scheme://[userinfo@]host[:port][path][?query][#fragment] (RFC 3986 §3); core has no URL parser.
const URI = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@]*@)?(\[[0-9a-f:.]+\]|[^/?#:@[\]]+)(?::(\d{1,5}))?([/?][^#]*)?(#.*)?$/i;

const parseUri = (raw: string): ParsedUri | null => {
  const m = URI.exec(raw);
  if (!m) return null;
  return {
    scheme: (m[1] ?? "").toLowerCase(),
    userinfo: m[2] !== undefined,
    host: (m[3] ?? "").toLowerCase(),
    port: m[4] ?? "",
    rest: m[5] ?? "",
    fragment: m[6] !== undefined,
  };
};

/** The lower-cased host of an absolute URI, null when it is not one. */
export const uriHost = (raw: string): string | null => parseUri(raw)?.host ?? null;

/** Why one redirect URI cannot be registered, or null when it can (RFC 6749 §3.1.2, RFC 8252 §7.3). */
export const redirectUriProblem = (raw: string): string | null => {
  const url = parseUri(raw);
  if (!url) return "must be an absolute URI";
  if (url.fragment) return "must not contain a fragment";
  if (url.userinfo) return "must not contain user information";
  if (url.scheme === "https") return null;
  if (url.scheme === "http" && LOOPBACK_HOSTS.has(url.host)) return null;
  return "must use https, or http on 127.0.0.1, [::1] or localhost";
};

/** The registered list as stored (one space between URIs, which cannot contain spaces); throws a 422. */
export const checkRedirectUris = (uris: readonly string[], field = "redirect_uris"): string => {
  const errors: FieldError[] = [];
  uris.forEach((uri, i) => {
    const problem = /\s/.test(uri) ? "must not contain whitespace" : redirectUriProblem(uri);
    if (problem) errors.push({ field: `${field}.${i}`, message: problem });
  });
  if (errors.length > 0) throw validationFailed("Invalid redirect URI", errors);
  return [...new Set(uris)].join(" ");
};

export const redirectUriList = (stored: string): string[] => stored.split(" ").filter((u) => u.length > 0);

/**
 * RFC 8252 §7.3: a loopback redirect URI matches whatever port the native app listens on; every
 * other URI must match exactly, character for character.
 */
export const redirectUriRegistered = (registered: readonly string[], presented: string): boolean => {
  if (registered.includes(presented)) return true;
  const asked = parseUri(presented);
  if (!asked || asked.fragment || asked.userinfo) return false;
  if (asked.scheme !== "http" || !LOOPBACK_HOSTS.has(asked.host)) return false;
  return registered.some((r) => {
    const reg = parseUri(r);
    return reg !== null && reg.scheme === "http" && reg.host === asked.host && reg.rest === asked.rest;
  });
};
