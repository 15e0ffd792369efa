import { type CoreError, validationFailed } from "../errors/mod.ts";

/** The most an uploaded image may weigh. */
export const IMAGE_MAX_BYTES = 1024 * 1024;
/**
 * The largest side of a PNG: beyond this a "logo" is a decompression bomb. Every upload is decoded
 * whole (CRCs, pixels): at 2048 px a 16-bit RGBA image takes about 0.6 s and 80 MiB to decode; at
 * 4096 px four times both. Badges are shown at a few hundred pixels.
 */
export const IMAGE_MAX_SIDE = 2048;

export interface CheckedImage {
  contentType: "image/png" | "image/svg+xml";
  extension: "png" | "svg";
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const u32 = (b: Uint8Array, at: number): number =>
  (((b[at] ?? 0) << 24) | ((b[at + 1] ?? 0) << 16) | ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0)) >>> 0;

/**
 * An image refused: the field error says what was wrong; the whole message names the field, so a
 * form shows it once. Also the answer of the image adapter's decoder and SVG rebuild.
 */
export const imageRefused = (message: string): CoreError =>
  validationFailed("The image was refused", [{ field: "image", message }]);

const chunkType = (bytes: Uint8Array, at: number): string => String.fromCharCode(...bytes.subarray(at + 4, at + 8));

/**
 * A PNG, walked chunk by chunk: IHDR first with dimensions in range, every chunk's length inside
 * the file, at least one IDAT, and IEND last with nothing after it. Bytes after IEND are how a
 * file passes as a picture while carrying something else (an HTML page, an archive), so they are
 * refused. The dimensions are checked here, before anything is decoded, so that decoding is
 * bounded; checksums and pixel data are judged by a PNG decoder in the image adapter.
 */
const checkPng = (bytes: Uint8Array): CheckedImage => {
  if (bytes.length < 33 || u32(bytes, 8) !== 13 || chunkType(bytes, 8) !== "IHDR") {
    throw imageRefused("is not a readable PNG");
  }
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  if (width < 1 || height < 1 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
    throw imageRefused(`must be between 1 and ${IMAGE_MAX_SIDE} pixels on each side`);
  }
  let at = 8;
  let sawData = false;
  while (at + 12 <= bytes.length) {
    const length = u32(bytes, at);
    const type = chunkType(bytes, at);
    const end = at + 12 + length;
    if (end > bytes.length) throw imageRefused("is not a readable PNG: a chunk runs past the end of the file");
    if (type === "IHDR" && at !== 8) throw imageRefused("is not a readable PNG: IHDR appears twice");
    if (type === "IDAT") sawData = true;
    if (type === "IEND") {
      if (!sawData) throw imageRefused("is not a readable PNG: it has no image data");
      if (end !== bytes.length) throw imageRefused("is not a readable PNG: it has data after its end (trailing junk)");
      return { contentType: "image/png", extension: "png" };
    }
    at = end;
  }
  throw imageRefused("is not a readable PNG: it has no end chunk");
};

/**
 * What may come before an SVG's root: a byte-order mark, whitespace, comments and processing
 * instructions (the XML declaration; any other, such as `<?xml-stylesheet?>`, is left out of the
 * rebuilt document). A comment's or an instruction's body cannot hold its own end, so each is
 * read one way only: a run of them that ends in no root costs linear time, not exponential.
 */
const SVG_PROLOG = String.raw`^\uFEFF?\s*(?:(?:<\?(?:[^?]|\?(?!>))*\?>|<!--(?:[^-]|-(?!->))*-->)\s*)*`;
/** The document's first element must be `<svg>`: an HTML page that merely contains an SVG is not one. */
const SVG_ROOT = new RegExp(`${SVG_PROLOG}<svg[\\s>/]`, "i");
/** A DOCTYPE declares entities, which a parser may expand (into a file of the server, or a billion laughs). */
const SVG_DOCTYPE = new RegExp(`${SVG_PROLOG}<!DOCTYPE\\s+svg\\b`, "i");

/**
 * An SVG's structure: its root is `<svg>`. What it may contain is the allow-list of
 * `svg_allow_list.ts`, from which the image adapter rebuilds it; the rebuilt document is what is
 * stored, and it is judged here again.
 */
const checkSvg = (text: string): CheckedImage => {
  if (SVG_DOCTYPE.test(text)) throw imageRefused("is an SVG with a DOCTYPE, which Laurel does not accept");
  if (!SVG_ROOT.test(text)) throw imageRefused("is neither a PNG nor an SVG image");
  return { contentType: "image/svg+xml", extension: "svg" };
};

/**
 * An uploaded issuer image, judged by its content (never by its name or declared type): a PNG
 * with a valid chunk structure, or a document whose root is `<svg>`, at most 1 MiB. `text` is the
 * bytes read as UTF-8.
 */
export const checkImage = (bytes: Uint8Array, text: string): CheckedImage => {
  if (bytes.length === 0) throw imageRefused("is empty");
  if (bytes.length > IMAGE_MAX_BYTES) throw imageRefused("is larger than 1 MiB");
  if (PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return checkPng(bytes);
  return checkSvg(text);
};
