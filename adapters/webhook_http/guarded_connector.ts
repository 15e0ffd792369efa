import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { Socket } from "node:net";
import { createSecureContext } from "node:tls";
import { buildConnector } from "undici";
import { type AddressBlockReason, addressBlockReason, type Cidr, parseIp } from "../../core/webhooks/mod.ts";

/** A connection refused by the SSRF rule: nothing was sent to that address. */
export class BlockedAddressError extends Error {
  readonly code = "EWEBHOOKBLOCKED";
  readonly address: string;
  readonly reason: AddressBlockReason;
  constructor(address: string, reason: AddressBlockReason) {
    super(`refused to connect to ${address} (${reason} address; see WEBHOOK_ALLOWED_NETWORKS)`);
    this.name = "BlockedAddressError";
    this.address = address;
    this.reason = reason;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect` that drops forbidden addresses from the answer, so the socket can
 * only ever be opened to an allowed one: the address checked is the address connected to, and a
 * name that resolves differently a second later (DNS rebinding) gains nothing.
 */
const guardedLookup =
  (allowed: readonly Cidr[]) =>
  (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const usable = addresses.filter((a) => addressBlockReason(a.address, allowed) === null);
      const first = usable[0];
      if (!first) {
        const a = addresses[0]?.address ?? hostname;
        return callback(new BlockedAddressError(a, addressBlockReason(a, allowed) ?? "invalid"), []);
      }
      if (options.all) callback(null, usable);
      else callback(null, first.address, first.family);
    });
  };

/**
 * undici's TLS connector with the SSRF rule applied twice: names resolve only to allowed addresses
 * (above), and the socket's actual remote address is checked once connected (an IP literal host
 * is checked before any packet is sent). `ca` replaces Node's roots when given.
 */
export const guardedConnector = (options: {
  allowed: readonly Cidr[];
  ca?: string[] | undefined;
  connectTimeoutMs: number;
}): buildConnector.connector => {
  const base = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(options.allowed) as never,
    // One context for every connection: building one from ~140 root certificates costs
    // milliseconds, far more than the handshake it serves.
    ...(options.ca ? { secureContext: createSecureContext({ ca: options.ca }) } : {}),
  });
  return (opts, callback) => {
    if (parseIp(opts.hostname)) {
      const reason = addressBlockReason(opts.hostname, options.allowed);
      if (reason) return callback(new BlockedAddressError(opts.hostname, reason), null);
    }
    base(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error("no socket"), null);
      const remote = (socket as Socket).remoteAddress ?? "";
      const reason = addressBlockReason(remote, options.allowed);
      if (reason) {
        socket.destroy();
        return callback(new BlockedAddressError(remote || opts.hostname, reason), null);
      }
      callback(null, socket);
    });
  };
};
