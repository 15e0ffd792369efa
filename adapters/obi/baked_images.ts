import { crc32 } from "node:zlib";

/**
 * Baked badge images: the image a badge shows, carrying its Open Badges record, as backpacks
 * import them. In a PNG the record is an iTXt chunk just before IEND (keyword `openbadges`: the
 * hosted OB 2.0 assertion; `openbadgecredential`: the OB 3.0 credential). In an SVG, OB 2.0 is an
 * `openbadges:assertion` element in the `http://openbadges.org` namespace, its text in CDATA; OB
 * 3.0 is an `openbadges:credential` element in the `https://purl.imsglobal.org/ob/v3p0`
 * namespace, a VC-JWT in its `verify` attribute and a JSON credential (an embedded proof) in
 * CDATA as its text.
 */
export const PNG_KEYWORD = { ob2: "openbadges", ob3: "openbadgecredential" } as const;
export type BakedFormat = keyof typeof PNG_KEYWORD;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const SVG_NAMESPACE = { ob2: "http://openbadges.org", ob3: "https://purl.imsglobal.org/ob/v3p0" } as const;

export const isPng = (bytes: Uint8Array): boolean =>
  bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(PNG_SIGNATURE);

interface Chunk {
  type: string;
  data: Buffer;
  /** Offset of the chunk's length field in the file. */
  start: number;
}

/** The chunks of a PNG, or null when the bytes are not a well-formed PNG (bad CRCs included). */
const pngChunks = (png: Buffer): Chunk[] | null => {
  if (!isPng(png)) return null;
  const chunks: Chunk[] = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const end = at + 12 + length;
    if (end > png.length) return null;
    const type = png.toString("latin1", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) return null;
    chunks.push({ type, data, start: at });
    at = end;
    if (type === "IEND") return chunks;
  }
  return null;
};

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};

/**
 * The PNG with one iTXt chunk (uncompressed, no language) holding `text` under `keyword`, before
 * IEND. Chunks of either Open Badges keyword already in the image are left out: a baked image
 * carries one record, the one given.
 */
export const bakePng = (png: Buffer, format: BakedFormat, text: string): Buffer => {
  const chunks = pngChunks(png);
  if (!chunks) throw new Error("not a PNG image");
  const keywords = new Set<string>(Object.values(PNG_KEYWORD));
  const kept = chunks.filter(
    (c) => c.type === "IEND" || !(["iTXt", "tEXt", "zTXt"].includes(c.type) && keywords.has(keywordOf(c.data))),
  );
  const itxt = Buffer.concat([
    Buffer.from(PNG_KEYWORD[format], "latin1"),
    // Null separator, compression flag 0, method 0, empty language tag and translated keyword.
    Buffer.from([0, 0, 0, 0, 0]),
    Buffer.from(text, "utf8"),
  ]);
  const parts: Buffer[] = [PNG_SIGNATURE];
  for (const c of kept) {
    if (c.type === "IEND") parts.push(chunk("iTXt", itxt));
    parts.push(png.subarray(c.start, c.start + 12 + c.data.length));
  }
  return Buffer.concat(parts);
};

const keywordOf = (data: Buffer): string => {
  const zero = data.indexOf(0);
  return zero === -1 ? "" : data.toString("latin1", 0, zero);
};

/** `]]>` cannot appear inside CDATA: split it across two sections. */
const cdata = (text: string): string => `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
const attribute = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A compact JWS (three base64url parts): an OB 3.0 credential signed as a VC-JWT. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/;

/**
 * The SVG with the record as the first child of its root element, which declares the namespace of
 * the record's version (an `xmlns:openbadges` already there is given that value). `verify` is the
 * assertion's hosted URL (OB 2.0 only). An OB 3.0 VC-JWT goes in the `verify` attribute of an
 * empty element; any other OB 3.0 text (a credential with an embedded proof) in the element's CDATA.
 */
export const bakeSvg = (svg: Buffer, format: BakedFormat, text: string, verify: string | null): Buffer => {
  const source = svg.toString("utf8");
  const open = /<svg\b[^>]*>/.exec(source);
  if (!open) throw new Error("not an SVG image");
  const closing = open[0].endsWith("/>") ? "/>" : ">";
  const declaration = ` xmlns:openbadges="${SVG_NAMESPACE[format]}"`;
  const bare = open[0].slice(0, -closing.length).replace(/\sxmlns:openbadges\s*=\s*("[^"]*"|'[^']*')/, "");
  // An empty root (`<svg .../>`) is opened so that it can hold the record.
  const root = `${bare}${declaration}>`;
  const element =
    format === "ob2"
      ? `<openbadges:assertion verify="${attribute(verify ?? "")}">${cdata(text)}</openbadges:assertion>`
      : COMPACT_JWS.test(text)
        ? `<openbadges:credential verify="${attribute(text)}"></openbadges:credential>`
        : `<openbadges:credential>${cdata(text)}</openbadges:credential>`;
  const after = `${closing === "/>" ? "</svg>" : ""}${source.slice(open.index + open[0].length)}`;
  return Buffer.from(`${source.slice(0, open.index)}${root}\n${element}${after}`);
};

/** What a baked image carries. */
export type BakedRecord =
  | { kind: "assertion"; text: string; verify: string | null }
  | { kind: "credential"; text: string };

/** Why an upload holds no record. */
export type BakedReadError = "not_an_image" | "no_record";

const fromItxt = (data: Buffer): string | null => {
  // keyword \0 flag method language \0 translated \0 text
  const k = data.indexOf(0);
  if (k === -1 || k + 3 > data.length) return null;
  if (data[k + 1] !== 0) return null;
  const lang = data.indexOf(0, k + 3);
  const translated = lang === -1 ? -1 : data.indexOf(0, lang + 1);
  return translated === -1 ? null : data.toString("utf8", translated + 1);
};

/** The text with its CDATA sections opened, found with indexOf: linear in the text, whatever it holds. */
const uncdata = (text: string): string => {
  let out = "";
  let at = 0;
  for (;;) {
    const open = text.indexOf("<![CDATA[", at);
    const close = open === -1 ? -1 : text.indexOf("]]>", open + 9);
    if (close === -1) break;
    out += text.slice(at, open) + text.slice(open + 9, close);
    at = close + 3;
  }
  return unescapeXml(out + text.slice(at));
};

const unescapeXml = (text: string): string =>
  text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

/** The Open Badges record baked in a PNG or an SVG (the OB 2.0 assertion first), or why none. */
export const readBaked = (bytes: Buffer): BakedRecord | BakedReadError => {
  if (isPng(bytes)) {
    const chunks = pngChunks(bytes);
    if (!chunks) return "not_an_image";
    const text = (keyword: string): string | null => {
      for (const c of chunks) {
        if (keywordOf(c.data) !== keyword) continue;
        if (c.type === "iTXt") return fromItxt(c.data);
        if (c.type === "tEXt") return c.data.toString("latin1", keyword.length + 1);
      }
      return null;
    };
    const assertion = text(PNG_KEYWORD.ob2);
    if (assertion !== null) return { kind: "assertion", text: assertion.trim(), verify: null };
    const credential = text(PNG_KEYWORD.ob3);
    return credential !== null ? { kind: "credential", text: credential.trim() } : "no_record";
  }
  const source = bytes.toString("utf8");
  if (!/<svg\b/.test(source.slice(0, 4096))) return "not_an_image";
  const assertion = firstElement(source, "openbadges:assertion");
  if (assertion) {
    const verify = /\bverify\s*=\s*"([^"]*)"/.exec(assertion.attributes)?.[1];
    return { kind: "assertion", text: uncdata(assertion.content).trim(), verify: verify ? uncdata(verify) : null };
  }
  // The VC-JWT in `verify` (OB 3.0), else the element's text: a JSON credential, or the VC-JWT as
  // Laurel baked it before it followed OB 3.0's SVG form (and under the OB 2.0 namespace).
  const credential = firstElement(source, "openbadges:credential");
  if (!credential) return "no_record";
  const verify = /\bverify\s*=\s*("([^"]*)"|'([^']*)')/.exec(credential.attributes);
  const jws = verify ? uncdata(verify[2] ?? verify[3] ?? "").trim() : "";
  if (jws !== "") return { kind: "credential", text: jws };
  const text = uncdata(credential.content).trim();
  return text !== "" ? { kind: "credential", text } : "no_record";
};

/**
 * The first `<name ...>...</name>` or `<name .../>` of an SVG's text: its attributes' text and its
 * content. Found with indexOf, so an upload of many opening tags without their end costs one pass
 * (a lazy regex would scan to the end of the text from each of them).
 */
const firstElement = (
  source: string,
  name: string,
): { attributes: string; content: string; selfClosing: boolean } | null => {
  const open = `<${name}`;
  let at = source.indexOf(open);
  while (at !== -1 && !/[\s/>]/.test(source[at + open.length] ?? "")) at = source.indexOf(open, at + 1);
  if (at === -1) return null;
  const tagEnd = source.indexOf(">", at);
  if (tagEnd === -1) return null;
  const selfClosing = source[tagEnd - 1] === "/";
  const attributes = source.slice(at + open.length, selfClosing ? tagEnd - 1 : tagEnd);
  if (selfClosing) return { attributes, content: "", selfClosing };
  const end = source.indexOf(`</${name}>`, tagEnd + 1);
  return end === -1 ? null : { attributes, content: source.slice(tagEnd + 1, end), selfClosing };
};
