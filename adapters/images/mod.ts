export type { DecodedPng } from "./png_decoder.ts";
export { decodedPng } from "./png_decoder.ts";
export { storableImage } from "./storable_image.ts";
export { sanitizedSvg } from "./svg_sanitizer.ts";
