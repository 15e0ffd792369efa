import type { FieldError } from "../errors/mod.ts";

/**
 * SSRF rules over textual IP addresses. The adapter checks the address it actually connected to
 * (the socket's remote address), not only the name in the URL, so DNS rebinding cannot slip past.
 * Anything that does not parse is refused (fail closed).
 */

/** A parsed address: 4 bytes (IPv4) or 16 bytes (IPv6). */
export interface IpAddress {
  readonly version: 4 | 6;
  readonly bytes: readonly number[];
}

/** A network in CIDR form; host bits are cleared on parse. */
export interface Cidr extends IpAddress {
  readonly prefix: number;
}

/** Why an address is refused; metrics and attempt errors use these labels. */
export const ADDRESS_BLOCK_REASONS = [
  "invalid",
  "unspecified",
  "loopback",
  "private",
  "link_local",
  "shared", // CGNAT 100.64.0.0/10
  "multicast",
  "broadcast",
  "reserved", // documentation, benchmarking, protocol assignments, 240/4, site-local, discard
] as const;
export type AddressBlockReason = (typeof ADDRESS_BLOCK_REASONS)[number];

const IPV4_OCTET = /^(0|[1-9][0-9]{0,2})$/;

const parseIpv4 = (text: string): number[] | undefined => {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const p of parts) {
    // Leading zeros are refused: some stacks read them as octal.
    if (!IPV4_OCTET.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
};

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

const parseGroups = (text: string, allowTrailingIpv4: boolean): number[] | undefined => {
  if (text === "") return [];
  const parts = text.split(":");
  const bytes: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (allowTrailingIpv4 && i === parts.length - 1 && p.includes(".")) {
      const v4 = parseIpv4(p);
      if (!v4) return undefined;
      bytes.push(...v4);
    } else {
      if (!HEX_GROUP.test(p)) return undefined;
      const n = Number.parseInt(p, 16);
      bytes.push(n >> 8, n & 0xff);
    }
  }
  return bytes;
};

const parseIpv6 = (text: string): number[] | undefined => {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  if (halves.length === 1) {
    const bytes = parseGroups(text, true);
    return bytes && bytes.length === 16 ? bytes : undefined;
  }
  const head = parseGroups(halves[0] as string, false);
  const tail = parseGroups(halves[1] as string, true);
  if (!head || !tail) return undefined;
  const fill = 16 - head.length - tail.length;
  // "::" stands for at least one group of zeros.
  if (fill < 2) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
};

/**
 * Parses `192.0.2.1`, `2001:db8::1`, `[::1]`, `fe80::1%eth0` (the zone is dropped) and
 * `::ffff:127.0.0.1`. Returns undefined for anything else (host names, octal or short IPv4 forms).
 */
export const parseIp = (text: string): IpAddress | undefined => {
  let s = text.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (s.includes(":")) {
    const bytes = parseIpv6(s);
    return bytes ? { version: 6, bytes } : undefined;
  }
  const bytes = parseIpv4(s);
  return bytes ? { version: 4, bytes } : undefined;
};

const maskBytes = (bytes: readonly number[], prefix: number): number[] =>
  bytes.map((b, i) => {
    const bits = Math.min(Math.max(prefix - i * 8, 0), 8);
    return b & ((0xff << (8 - bits)) & 0xff);
  });

/**
 * Parses `10.0.0.0/8` or `fc00::/7`; a bare address is a single host (/32 or /128). Host bits
 * are cleared (`10.1.2.3/8` is `10.0.0.0/8`). Returns undefined when the text is not a CIDR.
 *
 * @example parseCidr("127.0.0.1/32") // { version: 4, bytes: [127, 0, 0, 1], prefix: 32 }
 */
export const parseCidr = (text: string): Cidr | undefined => {
  const s = text.trim();
  const slash = s.indexOf("/");
  const ip = parseIp(slash >= 0 ? s.slice(0, slash) : s);
  if (!ip) return undefined;
  const max = ip.version === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    prefix = Number(p);
    if (prefix > max) return undefined;
  }
  return { version: ip.version, bytes: maskBytes(ip.bytes, prefix), prefix };
};

/** `10.0.0.0/8`, `fc00::/7` (IPv6 uncompressed groups, enough for logs and messages). */
export const formatCidr = (cidr: Cidr): string => {
  if (cidr.version === 4) return `${cidr.bytes.join(".")}/${cidr.prefix}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((cidr.bytes[i] as number) << 8) | (cidr.bytes[i + 1] as number)).toString(16));
  return `${groups.join(":")}/${cidr.prefix}`;
};

const IPV4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** The IPv4 address inside `::ffff:a.b.c.d`, if it is one. */
const mappedIpv4 = (ip: IpAddress): IpAddress | undefined =>
  ip.version === 6 && IPV4_MAPPED_PREFIX.every((b, i) => ip.bytes[i] === b)
    ? { version: 4, bytes: ip.bytes.slice(12) }
    : undefined;

const inNetwork = (ip: IpAddress, cidr: Cidr): boolean => {
  if (ip.version !== cidr.version) return false;
  const masked = maskBytes(ip.bytes, cidr.prefix);
  return masked.every((b, i) => b === cidr.bytes[i]);
};

/**
 * Whether an address lies in a network. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) matches
 * IPv4 networks as its IPv4 address. An unparsable address is in no network.
 */
export const addressInCidr = (address: string | IpAddress, cidr: Cidr): boolean => {
  const ip = typeof address === "string" ? parseIp(address) : address;
  if (!ip) return false;
  if (inNetwork(ip, cidr)) return true;
  const v4 = mappedIpv4(ip);
  return v4 !== undefined && inNetwork(v4, cidr);
};

const net = (text: string): Cidr => {
  const c = parseCidr(text);
  if (!c) throw new Error(`bad built-in network ${text}`);
  return c;
};

/** Refused destinations, most specific first (the first match names the reason). */
const FORBIDDEN: readonly { cidr: Cidr; reason: AddressBlockReason }[] = [
  { cidr: net("0.0.0.0/32"), reason: "unspecified" },
  { cidr: net("0.0.0.0/8"), reason: "reserved" },
  { cidr: net("10.0.0.0/8"), reason: "private" },
  { cidr: net("100.64.0.0/10"), reason: "shared" },
  { cidr: net("127.0.0.0/8"), reason: "loopback" },
  { cidr: net("169.254.0.0/16"), reason: "link_local" },
  { cidr: net("172.16.0.0/12"), reason: "private" },
  { cidr: net("192.0.0.0/24"), reason: "reserved" },
  { cidr: net("192.0.2.0/24"), reason: "reserved" },
  { cidr: net("192.168.0.0/16"), reason: "private" },
  { cidr: net("198.18.0.0/15"), reason: "reserved" },
  { cidr: net("198.51.100.0/24"), reason: "reserved" },
  { cidr: net("203.0.113.0/24"), reason: "reserved" },
  { cidr: net("224.0.0.0/4"), reason: "multicast" },
  { cidr: net("255.255.255.255/32"), reason: "broadcast" },
  { cidr: net("240.0.0.0/4"), reason: "reserved" },
  { cidr: net("::/128"), reason: "unspecified" },
  { cidr: net("::1/128"), reason: "loopback" },
  { cidr: net("::/96"), reason: "reserved" }, // IPv4-compatible (deprecated)
  { cidr: net("100::/64"), reason: "reserved" }, // discard
  { cidr: net("2001:db8::/32"), reason: "reserved" },
  { cidr: net("fc00::/7"), reason: "private" },
  { cidr: net("fe80::/10"), reason: "link_local" },
  { cidr: net("fec0::/10"), reason: "reserved" }, // site-local (deprecated)
  { cidr: net("ff00::/8"), reason: "multicast" },
];

const NAT64 = net("64:ff9b::/96");
const SIX_TO_FOUR = net("2002::/16");

/** IPv6 forms that carry an IPv4 address the packets end up at: mapped, NAT64, 6to4. */
const embeddedIpv4 = (ip: IpAddress): IpAddress | undefined => {
  const mapped = mappedIpv4(ip);
  if (mapped) return mapped;
  if (inNetwork(ip, NAT64)) return { version: 4, bytes: ip.bytes.slice(12) };
  if (inNetwork(ip, SIX_TO_FOUR)) return { version: 4, bytes: ip.bytes.slice(2, 6) };
  return undefined;
};

/**
 * Why a destination address is refused, or null when it may be connected to. Addresses inside an
 * allowed network are never refused (`WEBHOOK_ALLOWED_NETWORKS`).
 *
 * @example addressBlockReason("::ffff:127.0.0.1", []) // "loopback"
 */
export const addressBlockReason = (address: string, allowed: readonly Cidr[] = []): AddressBlockReason | null => {
  const ip = parseIp(address);
  if (!ip) return "invalid";
  if (allowed.some((c) => addressInCidr(ip, c))) return null;
  const v4 = embeddedIpv4(ip);
  if (v4 && allowed.some((c) => inNetwork(v4, c))) return null;
  for (const candidate of v4 ? [v4, ip] : [ip]) {
    const hit = FORBIDDEN.find((f) => inNetwork(candidate, f.cidr));
    if (hit) return hit.reason;
  }
  return null;
};

/** True when the worker must not connect to this address. */
export const isForbiddenAddress = (address: string, allowed: readonly Cidr[] = []): boolean =>
  addressBlockReason(address, allowed) !== null;

/**
 * Parses `WEBHOOK_ALLOWED_NETWORKS`: comma-separated CIDRs (a bare address is one host); blanks are
 * skipped. Bad entries come back as field errors, so the process can refuse to start with all of them.
 *
 * @example parseAllowedNetworks("10.0.0.0/8, 127.0.0.1/32").networks.length // 2
 */
export const parseAllowedNetworks = (
  text: string | undefined,
  field = "WEBHOOK_ALLOWED_NETWORKS",
): { networks: Cidr[]; errors: FieldError[] } => {
  const networks: Cidr[] = [];
  const errors: FieldError[] = [];
  for (const entry of (text ?? "").split(",")) {
    const e = entry.trim();
    if (e === "") continue;
    const cidr = parseCidr(e);
    if (cidr) networks.push(cidr);
    else errors.push({ field, message: `"${e}" is not an IP address or CIDR network` });
  }
  return { networks, errors };
};
