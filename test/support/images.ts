import { crc32, deflateSync } from "node:zlib";

/** A chunk with its length and CRC, as a PNG encoder writes it. */
const chunk = (type: string, data: Uint8Array): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
};

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A real RGB PNG of one colour, `width` x `height`. With `declare`, the header claims other
 * dimensions than the pixel data holds (a decompression bomb's header costs nothing to write).
 */
export const png = (
  width: number,
  height: number,
  rgb: [number, number, number] = [200, 40, 40],
  declare?: { width: number; height: number },
): Buffer => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(declare?.width ?? width, 0);
  ihdr.writeUInt32BE(declare?.height ?? height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array(0)),
  ]);
};

/** The hostile files every image upload must refuse, each with what it is. */
export const badImages = (): Array<{ what: string; bytes: Buffer; type: string }> => [
  {
    what: "a PNG with trailing junk",
    bytes: Buffer.concat([png(8, 8), Buffer.from("<html><script>alert(1)</script></html>")]),
    type: "image/png",
  },
  {
    what: "a PNG that is really HTML",
    bytes: Buffer.from("<!doctype html><html><body><svg></svg><script>alert(1)</script></body></html>"),
    type: "image/png",
  },
  {
    what: "an SVG with script",
    bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    type: "image/svg+xml",
  },
  {
    what: "an SVG with xlink:href to an outside address",
    bytes: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="https://evil.example/x.svg#a"/></svg>',
    ),
    type: "image/svg+xml",
  },
  {
    what: "a 20,000 x 20,000 PNG (decompression bomb)",
    bytes: png(1, 1, [0, 0, 0], { width: 20_000, height: 20_000 }),
    type: "image/png",
  },
];
