import t from "tap";
import { isUnstorableText, unstorableTextErrors } from "../../core/shared/mod.ts";

t.test("text Laurel keeps: no NUL, no lone surrogate; paired surrogates are fine", async (t) => {
  const table: Array<[string, boolean]> = [
    ["plain", false],
    ["emoji \ud83c\udf89", false],
    ["nul \u0000", true],
    ["high \ud800 alone", true],
    ["low \udc00 alone", true],
    ["reversed \udc00\ud800", true],
    ["", false],
  ];
  for (const [text, refused] of table) t.equal(isUnstorableText(text), refused, JSON.stringify(text));
});

t.test("every refused string of a value, keys too, with its path; opaque values are not walked", async (t) => {
  const value = { name: "a\u0000", list: ["ok", "b\ud800"], "k\u0000": 1, nested: { deep: { x: "\udc00" } } };
  t.same(unstorableTextErrors(value), [
    { field: "name", message: "must not contain NUL characters" },
    { field: "list.1", message: "must not contain unpaired surrogates" },
    { field: "k\u0000", message: "must not contain NUL characters" },
    { field: "nested.deep.x", message: "must not contain unpaired surrogates" },
  ]);
  t.same(unstorableTextErrors("x\u0000"), [{ field: "body", message: "must not contain NUL characters" }]);
  t.same(
    unstorableTextErrors({ file: { bytes: "\u0000" } }, (v) => "bytes" in v),
    [],
    "opaque",
  );
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, "\u0000"]));
  t.equal(unstorableTextErrors(many).length, 20, "at most 20 named");
});
