/** Bytes of a receiver's response kept with each attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

const utf8Length = (codePoint: number): number =>
  codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;

/**
 * The start of a response body that fits in `maxBytes` of UTF-8, never cutting a character.
 * NUL and lone surrogates become U+FFFD (PostgreSQL text refuses NUL; UTF-8 has no surrogates).
 * The adapter need only read the first `maxBytes` bytes of the body and decode them.
 *
 * @example responseExcerpt("é".repeat(600)).length // 512 (1024 bytes)
 */
export const responseExcerpt = (text: string, maxBytes = RESPONSE_EXCERPT_BYTES): string => {
  let out = "";
  let bytes = 0;
  for (const ch of text) {
    let cp = ch.codePointAt(0) as number;
    let c = ch;
    if (cp === 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
      cp = 0xfffd;
      c = "\ufffd";
    }
    const n = utf8Length(cp);
    if (bytes + n > maxBytes) break;
    bytes += n;
    out += c;
  }
  return out;
};
