import { inflateSync } from "node:zlib";
import pngjs from "pngjs";

/** What decoding a PNG found. */
export interface DecodedPng {
  width: number;
  height: number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * The compressed pixel data of an interlaced PNG (its IDAT chunks joined), with what bounds its
 * size once inflated; null for a PNG that is not interlaced or whose header pngjs will refuse.
 */
const interlacedData = (png: Buffer): { data: Buffer; maxBytes: number } | null => {
  if (png.length < 33 || png[28] !== 1) return null;
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const channels = CHANNELS[png[25] ?? -1];
  if (channels === undefined) return null;
  const bits = channels * (png[24] ?? 0);
  const parts: Buffer[] = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString("latin1", at + 4, at + 8) === "IDAT") parts.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  // The seven Adam7 passes hold each pixel once, plus a filter byte and a partial byte per row:
  // fewer than two rows of each pass for every row of the image, seven passes rounded up.
  return { data: Buffer.concat(parts), maxBytes: Math.ceil((width * height * bits) / 8) + 4 * height + 16 };
};

/**
 * The PNG decoded by pngjs: every chunk's CRC checked and the pixel data inflated and unfiltered,
 * so a file that a baker, a browser or a backpack would choke on is known at once. Throws when the
 * file does not decode. The caller checks the dimensions first (core's `checkImage`): pngjs
 * inflates a non-interlaced image with a bound computed from its header, and an interlaced one
 * without, so that one is inflated here first within the same bound.
 */
export const decodedPng = (bytes: Uint8Array): DecodedPng => {
  const png = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const interlaced = interlacedData(png);
  if (interlaced) inflateSync(interlaced.data, { maxOutputLength: interlaced.maxBytes });
  const { width, height } = pngjs.PNG.sync.read(png, { checkCRC: true });
  return { width, height };
};
