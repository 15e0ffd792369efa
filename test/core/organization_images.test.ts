import t from "tap";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import {
  checkImage,
  cssInert,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_SIDE,
  styleSheetKept,
  svgAttributeKept,
} from "../../core/organizations/mod.ts";
import { badImages, png } from "../support/images.ts";

/** What a rule returns, or the CoreError it throws: both are answers these tables check. */
const caught = <T>(run: () => T): T | CoreError => {
  const result = resultOf(run);
  return result.ok ? result.value : result.error;
};

const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
const svg = (inner: string, attrs = ""): [Uint8Array, string] => {
  const text = `<svg xmlns="http://www.w3.org/2000/svg"${attrs}>${inner}</svg>`;
  return [new TextEncoder().encode(text), text];
};
const code = (r: ReturnType<typeof checkImage> | CoreError): string => (isCoreError(r) ? r.code : r.contentType);

t.test("images judged by their content: PNG header and size, SVG by its root", (t) => {
  t.equal(code(caught(() => checkImage(PNG, ""))), "image/png");
  const huge = PNG.slice();
  huge.set([0, 0, 0x20, 0], 16);
  t.equal(code(caught(() => checkImage(huge, ""))), "validation_failed", `a PNG wider than ${IMAGE_MAX_SIDE} px`);
  const zero = PNG.slice();
  zero.set([0, 0, 0, 0], 20);
  t.equal(code(caught(() => checkImage(zero, ""))), "validation_failed", "a PNG of no height");
  t.equal(code(caught(() => checkImage(PNG.slice(0, 20), ""))), "validation_failed", "a cut PNG");
  t.equal(code(caught(() => checkImage(new Uint8Array(IMAGE_MAX_BYTES + 1), ""))), "validation_failed", "over 1 MiB");
  t.equal(code(caught(() => checkImage(new Uint8Array(0), ""))), "validation_failed", "empty");
  t.equal(
    code(caught(() => checkImage(...svg('<circle r="4" fill="url(#g)"/><use href="#c"/>')))),
    "image/svg+xml",
    "in-file references",
  );
  // What an SVG holds is judged by the rebuild from the allow-list (below), not here.
  t.equal(code(caught(() => checkImage(...svg("<script>alert(1)</script>")))), "image/svg+xml", "root svg");
  const text = (s: string): [Uint8Array, string] => [new TextEncoder().encode(s), s];
  const prologs: Array<[string, string, string]> = [
    ['<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>', "validation_failed", "a DOCTYPE"],
    ["<!-- a -->\n<!DOCTYPE svg><svg/>", "validation_failed", "a DOCTYPE after a comment"],
    ['<?xml-stylesheet href="#x"?><svg/>', "image/svg+xml", "another processing instruction (left out by the rebuild)"],
    ['<?xml version="1.0"?><!-- a -- b --><svg/>', "image/svg+xml", "a declaration and a comment"],
    ["GIF89a", "validation_failed", "anything else"],
  ];
  for (const [document, expected, what] of prologs) {
    t.equal(code(caught(() => checkImage(...text(document)))), expected, what);
  }
  const slow = `${"<!---->".repeat(50_000)}x`;
  const started = performance.now();
  t.equal(code(caught(() => checkImage(...text(slow)))), "validation_failed", "a long prolog with no root");
  t.ok(performance.now() - started < 1_000, "read in linear time");
  t.end();
});

t.test("the SVG allow-list's values: in-file references only, CSS that loads nothing", (t) => {
  const attributes: Array<[string, string, boolean]> = [
    ["href", "#star", true],
    ["xlink:href", " #star ", true],
    ["href", "javascript:alert(1)", false],
    ["href", "https://evil.example/x.svg#a", false],
    ["xlink:href", "data:image/svg+xml;base64,PHN2Zz4=", false],
    ["href", "other.svg#a", false],
    ["xmlns", "http://www.w3.org/2000/svg", true],
    ["xmlns", "http://www.w3.org/1999/xhtml", false],
    ["xmlns:xlink", "http://www.w3.org/1999/xlink", true],
    ["fill", "url(#g)", true],
    ["fill", "url( '#g' )", true],
    ["fill", "url(https://x.example/p)", false],
    ["fill", "url(  https://x.example/p", false],
    ["transform", "rotate(-35 62 70) translate(1, 2)", true],
    ["style", "fill:#fff;stroke:rgb(1, 2, 3);opacity:0.5", true],
    ["style", "fill:u\\72l(https://x.example/p)", false],
    ["style", 'background:image-set("https://x.example/a.png" 1x)', false],
    ["style", "@import 'x.css'", false],
  ];
  for (const [name, value, kept] of attributes) t.equal(svgAttributeKept(name, value), kept, `${name}="${value}"`);
  t.ok(styleSheetKept(".a { fill: url(#g); font-family: 'Open Sans' }"), "an inert stylesheet");
  t.notOk(styleSheetKept("@font-face { src: url(https://x.example/f.woff) }"), "a font from elsewhere");
  t.notOk(styleSheetKept(".a { fill: red } </style><script>"), "markup");
  const started = performance.now();
  t.ok(cssInert("a".repeat(1 << 20)), "a megabyte of letters");
  t.ok(performance.now() - started < 1_000, "read in linear time");
  t.end();
});

t.test("a PNG is walked chunk by chunk; hostile files are refused naming the field image", (t) => {
  t.equal(code(caught(() => checkImage(png(40, 30), ""))), "image/png", "a real PNG");
  // The others are refused by the image adapter's PNG decoder (test/images).
  for (const { what, bytes } of badImages().filter((b) => b.refusedBy === "core")) {
    const result = caught(() => checkImage(bytes, bytes.toString("utf8")));
    t.equal(code(result), "validation_failed", `${what} refused`);
    t.equal("code" in result ? result.errors[0]?.field : null, "image", `${what}: the field is image`);
  }
  const good = png(4, 4);
  const iend = good.length - 12;
  t.equal(code(caught(() => checkImage(good.subarray(0, iend), ""))), "validation_failed", "no IEND");
  const noData = Buffer.concat([good.subarray(0, 33), good.subarray(iend)]);
  t.equal(code(caught(() => checkImage(noData, ""))), "validation_failed", "no IDAT");
  const long = Buffer.from(good);
  long.writeUInt32BE(0x7fffffff, 33);
  t.equal(code(caught(() => checkImage(long, ""))), "validation_failed", "a chunk longer than the file");
  const html = "<html><body><svg></svg></body></html>";
  t.equal(
    code(caught(() => checkImage(new TextEncoder().encode(html), html))),
    "validation_failed",
    "HTML holding an SVG",
  );
  const declared = '<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg"/>';
  t.equal(
    code(caught(() => checkImage(new TextEncoder().encode(declared), declared))),
    "image/svg+xml",
    "XML declaration first",
  );
  t.end();
});
