import t from "tap";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import { checkImage, IMAGE_MAX_BYTES } from "../../core/organizations/mod.ts";
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

t.test("images judged by their content: PNG header and size, SVG without script or outside references", (t) => {
  t.equal(code(caught(() => checkImage(PNG, ""))), "image/png");
  const huge = PNG.slice();
  huge.set([0, 0, 0x20, 0], 16);
  t.equal(code(caught(() => checkImage(huge, ""))), "validation_failed", "a PNG wider than 4096 px");
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
  const hostile: Array<[string, string, string]> = [
    ["<script>alert(1)</script>", "", "script"],
    ["", ' onload="alert(1)"', "onload"],
    ['<rect onclick="x()"/>', "", "onclick"],
    ['<image href="https://tracker.example/x.png"/>', "", "outside image"],
    ['<a xlink:href="javascript:alert(1)"><text>x</text></a>', "", "javascript: link"],
    ['<image href="data:image/svg+xml;base64,PHN2Zz4="/>', "", "data: document"],
    ["<style>@import url(https://x.example/a.css)</style>", "", "@import"],
    ['<rect style="fill:url(https://x.example/p)"/>', "", "url() elsewhere"],
    ["<foreignObject><div>x</div></foreignObject>", "", "foreignObject"],
  ];
  for (const [inner, attrs, what] of hostile) {
    t.equal(code(caught(() => checkImage(...svg(inner, attrs)))), "validation_failed", `SVG with ${what} refused`);
  }
  const dtd = '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>';
  t.equal(
    code(caught(() => checkImage(new TextEncoder().encode(dtd), dtd))),
    "validation_failed",
    "entity declarations refused",
  );
  t.equal(
    code(
      caught(() =>
        checkImage(
          ...(() => {
            const s = "GIF89a";
            return [new TextEncoder().encode(s), s] as [Uint8Array, string];
          })(),
        ),
      ),
    ),
    "validation_failed",
    "anything else refused",
  );
  t.end();
});

t.test("a PNG is walked chunk by chunk; hostile files are refused naming the field image", (t) => {
  t.equal(code(caught(() => checkImage(png(40, 30), ""))), "image/png", "a real PNG");
  for (const { what, bytes } of badImages()) {
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
