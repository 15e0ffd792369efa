import { randomFillSync } from "node:crypto";

let lastMs = 0;
let seq = 0;

// Random bytes are drawn from the kernel 4 KiB at a time (a getrandom call per id costs more than
// the rest of the id); each byte is used once.
const POOL = Buffer.alloc(4096);
let used = POOL.length;
const random = (n: number): Buffer => {
  if (used + n > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  used += n;
  return POOL.subarray(used - n, used);
};

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by time. Within
 * one millisecond a 12-bit counter keeps ids from one process increasing.
 */
export const uuidv7 = (now: number = Date.now()): string => {
  if (now <= lastMs) {
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    seq = random(2).readUInt16BE(0) & 0x3ff;
  }
  const bytes = Buffer.from(random(16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (seq >> 8);
  bytes[7] = seq & 0xff;
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
