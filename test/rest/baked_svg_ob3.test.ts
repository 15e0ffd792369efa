import { DOMParser } from "@xmldom/xmldom";
import t from "tap";
import { bakeSvg, readBaked } from "../../adapters/obi/mod.ts";

/**
 * OB 3.0 SVG baking as the specification writes it: the `https://purl.imsglobal.org/ob/v3p0`
 * namespace, a VC-JWT in the `verify` attribute of `openbadges:credential`, a JSON credential
 * (an embedded proof) in its CDATA. Read with a namespace-aware XML parser Laurel does not use
 * (@xmldom/xmldom), and by Laurel's own reader, which also reads the images it baked before
 * (the VC-JWT as the element's text, under the OB 2.0 namespace).
 */
const OB3 = "https://purl.imsglobal.org/ob/v3p0";
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle r="4"/></svg>');
const JWS = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1cm46dXVpZDp4In0.c2ln";

const parsed = (svg: Buffer) => {
  const doc = new DOMParser().parseFromString(svg.toString("utf8"), "image/svg+xml");
  const root = doc.documentElement;
  const credentials = doc.getElementsByTagNameNS(OB3, "credential");
  return {
    root: root?.localName,
    namespace: root?.getAttribute("xmlns:openbadges"),
    count: credentials.length,
    verify: credentials[0]?.getAttribute("verify") ?? null,
    text: credentials[0]?.textContent ?? null,
    first: root?.firstChild?.nextSibling?.nodeName,
  };
};

t.test("a VC-JWT goes in the verify attribute, in the OB 3.0 namespace", (t) => {
  const baked = bakeSvg(SVG, "ob3", JWS, null);
  t.same(parsed(baked), {
    root: "svg",
    namespace: OB3,
    count: 1,
    verify: JWS,
    text: "",
    first: "openbadges:credential",
  });
  t.same(readBaked(baked), { kind: "credential", text: JWS });
  t.end();
});

t.test("a JSON credential (embedded proof) goes in CDATA, without verify", (t) => {
  const json = JSON.stringify({ id: "urn:x", note: "a ]]> inside" });
  const baked = bakeSvg(SVG, "ob3", json, null);
  const read = parsed(baked);
  t.equal(read.verify, null);
  t.equal(read.text, json);
  t.same(readBaked(baked), { kind: "credential", text: json });
  t.end();
});

t.test("an SVG that declares the OB 2.0 namespace gets the OB 3.0 one for a credential", (t) => {
  const old = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org" viewBox="0 0 8 8"/>',
  );
  const baked = bakeSvg(old, "ob3", JWS, null);
  t.equal(parsed(baked).namespace, OB3);
  t.equal((baked.toString("utf8").match(/xmlns:openbadges/g) ?? []).length, 1, "declared once");
  t.end();
});

t.test("images Laurel baked before still read: the VC-JWT as text under the OB 2.0 namespace", (t) => {
  const legacy = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">\n<openbadges:credential><![CDATA[${JWS}]]></openbadges:credential><circle r="4"/></svg>`,
  );
  t.same(readBaked(legacy), { kind: "credential", text: JWS });
  t.equal(readBaked(Buffer.from(`<svg xmlns:openbadges="${OB3}"><openbadges:credential/></svg>`)), "no_record");
  t.end();
});
