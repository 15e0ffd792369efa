import t from "tap";
import { prefersLinkedData } from "../../adapters/obi/mod.ts";

t.test("a status list is JSON-LD only for a client that prefers it to the VC-JWT", async (t) => {
  const table: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ["", false],
    ["*/*", false],
    ["application/vc+jwt", false],
    ["application/ld+json, application/json", true],
    ["application/json", true],
    ["application/vc", true],
    ["application/ld+json;q=0", false],
    ["application/vc+jwt, application/ld+json", false],
    ["application/vc+jwt;q=0.5, application/ld+json", true],
    ["application/vc+jwt, application/ld+json;q=0.5", false],
    ["application/*, text/html", false],
  ];
  for (const [accept, expected] of table) t.equal(prefersLinkedData(accept), expected, `Accept: ${accept}`);
});
