import { type CheckedImage, checkImage, imageRefused } from "../../core/organizations/mod.ts";
import { decodedPng } from "./png_decoder.ts";
import { SvgRefused, sanitizedSvg } from "./svg_sanitizer.ts";

/**
 * The bytes Laurel stores for an upload (`text`: its bytes read as UTF-8) core's `checkImage`
 * accepted as `checked`: a PNG as sent,
 * once a decoder has read it whole (CRCs, pixel data); an SVG rebuilt from core's allow-list, and
 * judged by `checkImage` again. Throws core's image refusal (a 422 naming the field `image`).
 */
export const storableImage = (bytes: Uint8Array, text: string, checked: CheckedImage): Uint8Array => {
  if (checked.contentType === "image/png") {
    try {
      decodedPng(bytes);
    } catch {
      throw imageRefused("is not a readable PNG: its data is damaged (a checksum or the compressed pixels are wrong)");
    }
    return bytes;
  }
  let rebuilt: string;
  try {
    rebuilt = sanitizedSvg(text);
  } catch (err) {
    if (err instanceof SvgRefused) throw imageRefused(`is not a readable SVG: it ${err.message}`);
    throw err;
  }
  const stored = new TextEncoder().encode(rebuilt);
  checkImage(stored, rebuilt);
  return stored;
};
