import { type CoreError, validationFailed } from "../errors/mod.ts";

/** The most an uploaded image may weigh. */
export const IMAGE_MAX_BYTES = 1024 * 1024;
/** The largest side of a PNG: beyond this a "logo" is a decompression bomb. */
export const IMAGE_MAX_SIDE = 4096;

export interface CheckedImage {
  contentType: "image/png" | "image/svg+xml";
  extension: "png" | "svg";
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const u32 = (b: Uint8Array, at: number): number =>
  (((b[at] ?? 0) << 24) | ((b[at + 1] ?? 0) << 16) | ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0)) >>> 0;

/** The field error says what was wrong; the whole message names the field, so a form shows it once. */
const refused = (message: string): CoreError =>
  validationFailed("The image was refused", [{ field: "image", message }]);

const chunkType = (bytes: Uint8Array, at: number): string => String.fromCharCode(...bytes.subarray(at + 4, at + 8));

/**
 * A PNG, walked chunk by chunk: IHDR first with dimensions in range, every chunk's length inside
 * the file, at least one IDAT, and IEND last with nothing after it. Bytes after IEND are how a
 * file passes as a picture while carrying something else (an HTML page, an archive), so they are
 * refused. CRCs are not checked: a bad one spoils a picture, not the pages that show it.
 */
const checkPng = (bytes: Uint8Array): CheckedImage => {
  if (bytes.length < 33 || u32(bytes, 8) !== 13 || chunkType(bytes, 8) !== "IHDR") {
    throw refused("is not a readable PNG");
  }
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  if (width < 1 || height < 1 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
    throw refused(`must be between 1 and ${IMAGE_MAX_SIDE} pixels on each side`);
  }
  let at = 8;
  let sawData = false;
  while (at + 12 <= bytes.length) {
    const length = u32(bytes, at);
    const type = chunkType(bytes, at);
    const end = at + 12 + length;
    if (end > bytes.length) throw refused("is not a readable PNG: a chunk runs past the end of the file");
    if (type === "IHDR" && at !== 8) throw refused("is not a readable PNG: IHDR appears twice");
    if (type === "IDAT") sawData = true;
    if (type === "IEND") {
      if (!sawData) throw refused("is not a readable PNG: it has no image data");
      if (end !== bytes.length) throw refused("is not a readable PNG: it has data after its end (trailing junk)");
      return { contentType: "image/png", extension: "png" };
    }
    at = end;
  }
  throw refused("is not a readable PNG: it has no end chunk");
};

/**
 * What makes an SVG active or leak its viewers: script, event-handler attributes, embedded
 * documents, entity declarations, and any reference outside the file itself (a link, an image,
 * a stylesheet or font loaded from elsewhere, including `data:` documents). Only in-file
 * references (`#id`) are kept. Such a file is refused, not cleaned: what it was meant to show is
 * then unclear.
 */
const SVG_HAZARDS: ReadonlyArray<[RegExp, string]> = [
  [/<\s*script/i, "script"],
  [/\son[a-z]+\s*=/i, "event-handler attributes"],
  [/<\s*(foreignObject|iframe|embed|object)\b/i, "embedded documents"],
  [/<!\s*(ENTITY|DOCTYPE)/i, "entity declarations"],
  [/(?:^|[\s:])(?:href|src)\s*=\s*["']?(?!\s*["']?#)/i, "external references"],
  [/url\s*\(\s*["']?(?!\s*#)/i, "external references"],
  [/@import/i, "external references"],
  [/javascript\s*:/i, "script"],
];

/**
 * The document's first element must be `<svg>`: after an optional byte-order mark, XML
 * declaration, comments and whitespace. An HTML page that merely contains an SVG is not one.
 */
const SVG_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/i;

const checkSvg = (text: string): CheckedImage => {
  if (!SVG_ROOT.test(text)) throw refused("is neither a PNG nor an SVG image");
  for (const [pattern, what] of SVG_HAZARDS) {
    if (pattern.test(text)) throw refused(`is an SVG with ${what}, which Laurel does not accept`);
  }
  return { contentType: "image/svg+xml", extension: "svg" };
};

/**
 * An uploaded issuer image, judged by its content (never by its name or declared type): a PNG
 * with a valid header, or an inert SVG, at most 1 MiB. `text` is the bytes read as UTF-8.
 */
export const checkImage = (bytes: Uint8Array, text: string): CheckedImage => {
  if (bytes.length === 0) throw refused("is empty");
  if (bytes.length > IMAGE_MAX_BYTES) throw refused("is larger than 1 MiB");
  if (PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return checkPng(bytes);
  return checkSvg(text);
};
