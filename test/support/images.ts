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

/** A real interlaced (Adam7) RGB PNG of one colour: its seven passes, each row filtered with type 0. */
export const interlacedPng = (width: number, height: number, rgb: [number, number, number] = [20, 160, 90]): Buffer => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 1], 8);
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ] as const;
  const rows: Buffer[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    const passWidth = Math.ceil((width - x0) / dx);
    const passHeight = Math.ceil((height - y0) / dy);
    if (passWidth <= 0 || passHeight <= 0) continue;
    const row = Buffer.alloc(1 + passWidth * 3);
    for (let x = 0; x < passWidth; x++) row.set(rgb, 1 + x * 3);
    for (let y = 0; y < passHeight; y++) rows.push(row);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", new Uint8Array(0)),
  ]);
};

/** The PNG with its pixel data's checksum changed: every chunk is in place, one CRC is wrong. */
export const withBadCrc = (png: Buffer): Buffer => {
  const copy = Buffer.from(png);
  // The last four bytes before IEND (12 bytes) are the IDAT chunk's CRC.
  const crcEnd = copy.length - 12;
  copy[crcEnd - 1] = (copy[crcEnd - 1] ?? 0) ^ 0xff;
  return copy;
};

/**
 * A 64 x 64 interlaced PNG, checksums right, whose pixel data inflates to 16 MiB: far past the
 * 12 KiB its header announces (an interlaced image is inflated without a bound by the decoder's
 * own code).
 */
const interlacedBomb = (): Buffer => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(64, 0);
  ihdr.writeUInt32BE(64, 4);
  ihdr.set([8, 2, 0, 0, 1], 8);
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
};

/**
 * The hostile files every image upload must refuse, each with what it is and what refuses it:
 * core's structural check, or the PNG decoder of the image adapter.
 */
export const badImages = (): Array<{ what: string; bytes: Buffer; type: string; refusedBy: "core" | "decoder" }> => [
  {
    what: "a PNG with trailing junk",
    bytes: Buffer.concat([png(8, 8), Buffer.from("<html><script>alert(1)</script></html>")]),
    type: "image/png",
    refusedBy: "core",
  },
  {
    what: "a PNG that is really HTML",
    bytes: Buffer.from("<!doctype html><html><body><svg></svg><script>alert(1)</script></body></html>"),
    type: "image/png",
    refusedBy: "core",
  },
  {
    what: "an SVG with a DOCTYPE declaring an entity",
    bytes: Buffer.from(
      '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>',
    ),
    type: "image/svg+xml",
    refusedBy: "core",
  },
  {
    what: "a 20,000 x 20,000 PNG (decompression bomb)",
    bytes: png(1, 1, [0, 0, 0], { width: 20_000, height: 20_000 }),
    type: "image/png",
    refusedBy: "core",
  },
  {
    what: "a PNG whose pixel data has a wrong CRC",
    bytes: withBadCrc(png(16, 16)),
    type: "image/png",
    refusedBy: "decoder",
  },
  {
    what: "an interlaced PNG whose pixel data inflates far past its size",
    bytes: interlacedBomb(),
    type: "image/png",
    refusedBy: "decoder",
  },
];

const svg = (inner: string, attrs = "", prolog = ""): string =>
  `${prolog}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attrs}><circle id="c" r="4"/>${inner}</svg>`;

/**
 * SVGs carrying something active or something loaded from elsewhere: each is stored rebuilt
 * without it. `dangerous` matches the part that must be gone from the stored bytes.
 */
export const hostileSvgs = (): Array<{ what: string; text: string; dangerous: RegExp }> => [
  {
    what: "<set> turning a link into javascript: (an entity hiding the scheme)",
    text: svg('<a id="l"><set attributeName="href" to="java&#x73;cript:alert(1)"/><text>go</text></a>'),
    dangerous: /<set|javascript|java&#x73;cript|attributeName/i,
  },
  {
    what: "<animate> giving a link javascript: values",
    text: svg('<a><animate attributeName="href" values="javascript:alert(1)"/><text>go</text></a>'),
    dangerous: /<animate|javascript|attributeName/i,
  },
  {
    what: "a leading <?xml-stylesheet?>",
    text: svg("", "", '<?xml-stylesheet href="#x"?>\n'),
    dangerous: /xml-stylesheet|<\?/i,
  },
  { what: "<script>", text: svg("<script>alert(1)</script>"), dangerous: /script|alert/i },
  { what: "an onload attribute", text: svg("", ' onload="alert(1)"'), dangerous: /onload|alert/i },
  { what: "an onclick attribute", text: svg('<rect onclick="x()"/>'), dangerous: /onclick/i },
  {
    what: "an outside <image href>",
    text: svg('<image href="https://tracker.example/x.png"/>'),
    dangerous: /tracker\.example|<image/i,
  },
  {
    what: "xlink:href to an outside address",
    text: svg('<use xlink:href="https://evil.example/x.svg#a"/>'),
    dangerous: /evil\.example/i,
  },
  {
    what: "a data: document",
    text: svg('<image href="data:image/svg+xml;base64,PHN2Zz4="/>'),
    dangerous: /data:|<image/i,
  },
  {
    what: "a stylesheet @import",
    text: svg("<style>@import url(https://x.example/a.css); .a { fill: red }</style>"),
    dangerous: /@import|x\.example/i,
  },
  {
    what: "a style attribute's url() elsewhere",
    text: svg('<rect style="fill:url(https://x.example/p)"/>'),
    dangerous: /x\.example/i,
  },
  {
    what: "a foreignObject",
    text: svg(
      '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x<iframe src="https://x.example/"/></div></foreignObject>',
    ),
    dangerous: /foreignObject|<div|iframe|x\.example/i,
  },
];

/** An SVG as an editor exports it: what every part of it draws must survive the rebuild. */
export const legitimateSvg = `<?xml version="1.0" encoding="UTF-8"?>
<!-- Exported by an editor -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 120 120" width="120" height="120">
  <title>Gold star</title>
  <desc>A star on a gradient</desc>
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#1d4e89"/>
      <stop offset="1" stop-color="#4f8fd6" stop-opacity="0.8"/>
    </linearGradient>
    <radialGradient id="glow" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient>
    <path id="star" d="M60 10 L72 45 L110 45 L79 67 L90 104 L60 82 L30 104 L41 67 L10 45 L48 45 Z"/>
    <clipPath id="round"><circle cx="60" cy="60" r="58"/></clipPath>
    <filter id="soft"><feGaussianBlur in="SourceGraphic" stdDeviation="1.5"/></filter>
    <style>.label { font-family: 'Open Sans', sans-serif; fill: #222 }</style>
  </defs>
  <g clip-path="url(#round)">
    <rect width="120" height="120" fill="url(#sky)"/>
    <circle cx="60" cy="60" r="50" fill="url('#glow')" style="opacity:0.5;mix-blend-mode:screen"/>
    <use href="#star" fill="#c9a227" filter="url(#soft)"/>
    <use xlink:href="#star" fill="none" stroke="#7a5c00" stroke-width="2" transform="rotate(5 60 60)"/>
  </g>
  <text class="label" x="60" y="116" text-anchor="middle" font-size="9">Gold &amp; star</text>
</svg>
`;
