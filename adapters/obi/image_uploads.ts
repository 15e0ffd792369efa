import { type CoreError, validationFailed } from "../../core/errors/mod.ts";
import { checkImage } from "../../core/organizations/mod.ts";
import type { ImageStore } from "../db/mod.ts";
import { storableImage } from "../images/mod.ts";

/** Where uploaded images go: the content-addressed store and the hash that names them. */
export interface ImageUploads {
  store: ImageStore;
  sha256(bytes: Uint8Array): string;
}

const notDataUri = (message: string): CoreError => validationFailed(message, [{ field: "image", message }]);

/** `data:image/png;base64,...`, `data:image/svg+xml;base64,...` or `data:image/svg+xml;utf8,<svg ...>`. */
const DATA_URI = /^data:(image\/png|image\/svg\+xml)((?:;[a-z0-9=-]+)*?)(;base64)?,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of an image sent as a data URI; the content decides what it is, not the declared type. */
export const decodeImageDataUri = (uri: string): Uint8Array => {
  const head = DATA_URI.exec(uri);
  if (!head) throw notDataUri("must be a data URI of a PNG or SVG image (data:image/png;base64,...)");
  const payload = uri.slice(head[0].length);
  if (head[3]) {
    const compact = payload.replace(/\s+/g, "");
    if (!BASE64.test(compact)) throw notDataUri("is not valid base64");
    return new Uint8Array(Buffer.from(compact, "base64"));
  }
  try {
    return new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    throw notDataUri("is not a valid percent-encoded data URI");
  }
};

/**
 * Checks an uploaded image by its content (core's `checkImage`, then the image adapter's decoder
 * or SVG rebuild) and stores what is storable; the answer is its stored name,
 * `<sha256 of the stored bytes>.<png|svg>`; a refused image throws a 422 naming the field `image`.
 */
export const storeImage = async (uploads: ImageUploads, bytes: Uint8Array, now: Date): Promise<string> => {
  const text = new TextDecoder().decode(bytes);
  const checked = checkImage(bytes, text);
  const stored = storableImage(bytes, text, checked);
  const sha = uploads.sha256(stored);
  await uploads.store.put(sha, checked.contentType, stored, now);
  return `${sha}.${checked.extension}`;
};
