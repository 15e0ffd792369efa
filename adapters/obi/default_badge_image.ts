import { readFileSync } from "node:fs";

/**
 * The image of a badge class whose template has none: OB 2.0 requires a BadgeClass image, and a
 * verifier fetches it, so it is served by Laurel itself (a plain laurel wreath, SVG).
 */
export const DEFAULT_BADGE_IMAGE_SVG = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200">
  <title>Badge</title>
  <circle cx="100" cy="100" r="92" fill="#f4f1e8" stroke="#3d6b35" stroke-width="8"/>
  <g fill="#3d6b35">
    <ellipse cx="62" cy="70" rx="9" ry="18" transform="rotate(-35 62 70)"/>
    <ellipse cx="52" cy="100" rx="9" ry="18" transform="rotate(-5 52 100)"/>
    <ellipse cx="62" cy="130" rx="9" ry="18" transform="rotate(30 62 130)"/>
    <ellipse cx="138" cy="70" rx="9" ry="18" transform="rotate(35 138 70)"/>
    <ellipse cx="148" cy="100" rx="9" ry="18" transform="rotate(5 148 100)"/>
    <ellipse cx="138" cy="130" rx="9" ry="18" transform="rotate(-30 138 130)"/>
  </g>
  <circle cx="100" cy="100" r="22" fill="#c9a227"/>
</svg>
`,
  "utf8",
);

/**
 * The same image as a 200×200 PNG (rendered from the SVG above): backpacks import baked PNGs
 * more widely than SVGs, so a badge with the default image is offered as both.
 */
export const DEFAULT_BADGE_IMAGE_PNG = readFileSync(new URL("./default_badge_image.png", import.meta.url));
