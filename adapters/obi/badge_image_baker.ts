import { createHash } from "node:crypto";
import type { BadgeView } from "../../core/issuing/mod.ts";
import { boundedCache, type CacheLimits, keyBytes } from "../cache/mod.ts";
import { sanitizedSvg } from "../images/mod.ts";
import type { BadgeRecords } from "./badge_records.ts";
import { type BakedFormat, bakePng, bakeSvg } from "./baked_images.ts";
import type { DataIntegrityCredentials } from "./data_integrity_credentials.ts";
import { DEFAULT_BADGE_IMAGE_PNG, DEFAULT_BADGE_IMAGE_SVG } from "./default_badge_image.ts";

export type ImageType = "png" | "svg";
export const IMAGE_CONTENT_TYPE = { png: "image/png", svg: "image/svg+xml" } as const satisfies Record<
  ImageType,
  string
>;

/** An image a badge shows, and a name for it that changes when its bytes do. */
export interface BadgeImage {
  type: ImageType;
  bytes: Buffer;
  key: string;
}

/**
 * The image a badge's template shows, in the types it is offered in: the stored image the template
 * names by SHA-256 (in its own type only), or else the default image (PNG and SVG).
 */
export type BadgeImageSource = (storedSha256: string | null) => Promise<BadgeImage[]>;

export const storedBadgeImages =
  (images: { get(sha256: string): Promise<{ contentType: string; bytes: Buffer } | null> }): BadgeImageSource =>
  async (sha256) => {
    const stored = sha256 ? await images.get(sha256) : null;
    if (stored?.contentType === IMAGE_CONTENT_TYPE.png)
      return [{ type: "png", bytes: stored.bytes, key: sha256 ?? "" }];
    if (stored?.contentType === IMAGE_CONTENT_TYPE.svg)
      return [{ type: "svg", bytes: stored.bytes, key: sha256 ?? "" }];
    return [
      { type: "png", bytes: DEFAULT_BADGE_IMAGE_PNG, key: "default" },
      { type: "svg", bytes: DEFAULT_BADGE_IMAGE_SVG, key: "default" },
    ];
  };

/** Baked images of the last few thousand badges asked for; an entry outlives no change (see the key). */
export const BAKED_CACHE = { maxEntries: 4_000, maxBytes: 64 * 1024 * 1024, ttlMs: 10 * 60_000 } satisfies CacheLimits;

/**
 * The record an image carries: the OB 2.0 assertion, the OB 3.0 credential as a VC-JWT (`ob3`), or
 * the OB 3.0 credential as JSON-LD with its Data Integrity proof (`ob3_ldp`, for wallets that take
 * only embedded proofs). Both OB 3.0 forms are baked the OB 3.0 way (`BakedFormat` `ob3`).
 */
export type BakedRecordChoice = BakedFormat | "ob3_ldp";

export interface BadgeImageBaker {
  /** The types a badge's image is offered in (PNG first). */
  types(view: BadgeView): Promise<ImageType[]>;
  /** The badge's image with its record baked in; null when not offered in that type. */
  bake(view: BadgeView, type: ImageType, record: BakedRecordChoice): Promise<Buffer | null>;
}

/** Stored images found unbakeable, by SHA-256: baked on the default image without another try. */
const UNBAKEABLE = { maxEntries: 1_000, maxBytes: 256 * 1024, ttlMs: 0 } satisfies CacheLimits;
/** Stored SVGs as rebuilt for baking, by SHA-256: a rebuild of a large SVG takes a good part of a second. */
const REBUILT_SVGS = { maxEntries: 256, maxBytes: 16 * 1024 * 1024, ttlMs: 0 } satisfies CacheLimits;

const DEFAULT_IMAGE = { png: DEFAULT_BADGE_IMAGE_PNG, svg: DEFAULT_BADGE_IMAGE_SVG } as const satisfies Record<
  ImageType,
  Buffer
>;

/**
 * Bakes badge images from the records the hosted routes serve. The cache key holds a digest of
 * the record itself (assertion bytes, or the credential before signing) and of the image: any
 * change of the badge, its template or its issuer changes the record, hence the key, so a
 * revocation, a privacy switch or an edit is never answered with an older baked image.
 *
 * A stored SVG is rebuilt from the allow-list before baking, as an upload is, so an image stored
 * before that rule carries nothing active into the baked file. A stored image that cannot be
 * baked (a PNG with a damaged chunk, an SVG that is not one document) must not cost its earners
 * their downloads and exports: the badge is baked on the default image of the same type, and the
 * image is logged once, with its SHA-256, for an operator to look at.
 */
export const badgeImageBaker = (deps: {
  records: BadgeRecords;
  dataIntegrity: Pick<DataIntegrityCredentials, "signed">;
  images: BadgeImageSource;
  /** The SHA-256 of the stored image the badge's template shows, if any. */
  storedImageOf(view: BadgeView): string | null;
  limits?: CacheLimits;
  log?: { warn(obj: object, msg: string): void };
}): BadgeImageBaker => {
  const cache = boundedCache<Buffer>(deps.limits ?? BAKED_CACHE, { sizeOf: (v, k) => keyBytes(k) + v.length });
  const unbakeable = boundedCache<true>(UNBAKEABLE);
  const rebuilt = boundedCache<Buffer>(REBUILT_SVGS, { sizeOf: (v, k) => keyBytes(k) + v.length });
  const bakedFrom = (image: BadgeImage): Buffer => {
    if (image.type === "png") return image.bytes;
    const hit = rebuilt.get(image.key);
    if (hit) return hit;
    const svg = Buffer.from(sanitizedSvg(image.bytes.toString("utf8")));
    rebuilt.set(image.key, svg);
    return svg;
  };
  const digest = (text: string | Buffer) => createHash("sha256").update(text).digest("base64url");
  const bakeOn = (type: ImageType, bytes: Buffer, format: BakedFormat, text: string, verify: string | null) =>
    type === "png" ? bakePng(bytes, format, text) : bakeSvg(bytes, format, text, verify);
  const bakeStored = (image: BadgeImage, format: BakedFormat, text: string, verify: string | null): Buffer => {
    if (image.key !== "default" && !unbakeable.get(image.key)) {
      try {
        return bakeOn(image.type, bakedFrom(image), format, text, verify);
      } catch (err) {
        unbakeable.set(image.key, true);
        deps.log?.warn(
          { sha256: image.key, type: image.type, err },
          "a stored badge image cannot be baked: badges are baked on the default image",
        );
      }
    }
    return bakeOn(image.type, image.key === "default" ? image.bytes : DEFAULT_IMAGE[image.type], format, text, verify);
  };
  return {
    async types(view) {
      return (await deps.images(deps.storedImageOf(view))).map((i) => i.type);
    },
    async bake(view, type, choice) {
      const image = (await deps.images(deps.storedImageOf(view))).find((i) => i.type === type);
      if (!image) return null;
      const format: BakedFormat = choice === "ob2" ? "ob2" : "ob3";
      const record = format === "ob2" ? deps.records.assertion(view) : deps.records.credentialPayload(view);
      const key = `${view.badge.id}:${type}:${choice}:${image.key}:${digest(record)}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const text =
        choice === "ob2"
          ? record.toString("utf8")
          : choice === "ob3"
            ? await deps.records.credential(view)
            : (await deps.dataIntegrity.signed(view)).toString("utf8");
      const baked = bakeStored(image, format, text, format === "ob2" ? deps.records.assertionUrl(view.badge.id) : null);
      cache.set(key, baked);
      return baked;
    },
  };
};
