import t from "tap";
import { decodedPng, storableImage } from "../../adapters/images/mod.ts";
import { DEFAULT_BADGE_IMAGE_PNG, DEFAULT_BADGE_IMAGE_SVG } from "../../adapters/obi/mod.ts";
import { type CoreError, isCoreError } from "../../core/errors/mod.ts";
import { checkImage } from "../../core/organizations/mod.ts";
import { badImages, hostileSvgs, interlacedPng, legitimateSvg, png } from "../support/images.ts";

/**
 * What Laurel stores for an upload core's check let through: a PNG only once a decoder (pngjs)
 * has read it whole, and an SVG rebuilt from the allow-list.
 */
const stored = (bytes: Uint8Array): Uint8Array | CoreError => {
  const text = new TextDecoder().decode(bytes);
  try {
    return storableImage(bytes, text, checkImage(bytes, text));
  } catch (err) {
    if (isCoreError(err)) return err;
    throw err;
  }
};
const storedText = (text: string): string => {
  const answer = stored(new TextEncoder().encode(text));
  if (isCoreError(answer)) throw new Error(`refused: ${answer.errors[0]?.message}`);
  return new TextDecoder().decode(answer);
};

t.test("PNGs are stored as sent once decoded; a damaged one is refused naming the field image", (t) => {
  for (const [what, bytes] of [
    ["a plain PNG", png(40, 30)],
    ["an interlaced PNG", interlacedPng(37, 21)],
    ["the default badge image", DEFAULT_BADGE_IMAGE_PNG],
  ] as const) {
    t.same(stored(bytes), bytes, `${what}: the same bytes`);
  }
  t.same(decodedPng(interlacedPng(37, 21)), { width: 37, height: 21 });
  for (const { what, bytes } of badImages().filter((b) => b.refusedBy === "decoder")) {
    const answer = stored(bytes);
    t.equal(isCoreError(answer) && answer.code, "validation_failed", `${what}: refused`);
    t.equal(isCoreError(answer) && answer.errors[0]?.field, "image", `${what}: the field is image`);
  }
  t.end();
});

t.test("an SVG is stored rebuilt without what is active or loaded from elsewhere", (t) => {
  for (const { what, text, dangerous } of hostileSvgs()) {
    t.match(text, dangerous, `${what}: the upload carries it`);
    const rebuilt = storedText(text);
    t.notMatch(rebuilt, dangerous, `${what}: the stored bytes do not`);
    t.match(
      rebuilt,
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*><circle id="c" r="4"\/>/,
      `${what}: the picture stays`,
    );
  }
  t.end();
});

t.test("a legitimate SVG keeps every element and attribute; a rebuilt one is rebuilt to itself", (t) => {
  const rebuilt = storedText(legitimateSvg);
  const body = legitimateSvg.slice(legitimateSvg.indexOf("<svg")).trim();
  t.equal(rebuilt, body, "gradients, use href and xlink:href, clip paths, filters, style, text, title kept");
  t.equal(storedText(rebuilt), rebuilt, "rebuilding again changes nothing");
  t.equal(storedText(DEFAULT_BADGE_IMAGE_SVG.toString("utf8")), DEFAULT_BADGE_IMAGE_SVG.toString("utf8").trim());
  t.equal(
    storedText('<svg viewBox="0 0 4 4"><rect width="4" height="4"/></svg>'),
    '<svg viewBox="0 0 4 4" xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>',
    "the root is put in the SVG namespace",
  );
  t.end();
});

t.test("what is not one <svg> document is refused naming the field image", (t) => {
  for (const [what, text] of [
    ["two roots", '<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>'],
    ["a root of another case", '<SVG xmlns="http://www.w3.org/2000/svg"></SVG>'],
  ] as const) {
    const answer = stored(new TextEncoder().encode(text));
    t.equal(isCoreError(answer) && answer.errors[0]?.field, "image", what);
  }
  t.end();
});
