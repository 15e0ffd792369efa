import { validationFailed } from "../errors/mod.ts";

/** The largest badge image an earner may upload to add a badge baked into it. */
export const MAX_BAKED_IMAGE_BYTES = 2 * 1024 * 1024;

/** What an uploaded image was found to carry, as the image reader reports it. */
export type BakedUpload =
  | { kind: "assertion"; text: string; verify: string | null }
  | { kind: "credential"; text: string }
  | "not_an_image"
  | "no_record"
  | "too_large";

const refused = (message: string) => validationFailed(message, [{ field: "image", message }]);

/**
 * The form an uploaded baked image amounts to: the OB 2.0 assertion's address (the text itself
 * when it is one; else the `id` of the assertion JSON, which is its hosted address, or the SVG's
 * `verify` attribute) or the OB 3.0 credential. It is then checked exactly like a typed address or
 * a pasted credential: the embedded JSON is never trusted, only what its address serves.
 */
export const bakedBadgeInput = (upload: BakedUpload): { url: string } | { credential: string } => {
  if (upload === "too_large") throw refused(`The file is larger than ${MAX_BAKED_IMAGE_BYTES / 1024 / 1024} MiB.`);
  if (upload === "not_an_image") throw refused("The file is not a PNG or SVG image.");
  if (upload === "no_record") throw refused("This image carries no Open Badges record: it is not a baked badge image.");
  if (upload.kind === "credential") return { credential: upload.text };
  if (/^https?:\/\//i.test(upload.text)) return { url: upload.text };
  let id: unknown = null;
  try {
    id = (JSON.parse(upload.text) as { id?: unknown }).id;
  } catch {
    // Not JSON: only the verify attribute can name the assertion.
  }
  const url = typeof id === "string" && /^https?:\/\//i.test(id) ? id : upload.verify;
  if (!url) throw refused("The Open Badges assertion in this image names no address to verify it at.");
  return { url };
};
