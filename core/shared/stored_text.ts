/**
 * Text Laurel keeps: PostgreSQL `text` holds neither U+0000 nor a UTF-16 surrogate without its pair,
 * so such text is refused where it enters (each listener's edge, the CSV reader), never half-way
 * through a write. One rule, here; the edges apply it.
 */

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const MAX_DEPTH = 64;
const MAX_LISTED = 20;

/** What is wrong with `text` for storing, or null when it can be kept. */
export const unstorableReason = (text: string): string | null =>
  text.includes("\u0000")
    ? "must not contain NUL characters"
    : LONE_SURROGATE.test(text)
      ? "must not contain unpaired surrogates"
      : null;

export const isUnstorableText = (text: string): boolean => unstorableReason(text) !== null;

/**
 * The strings (keys or values) of `value` that cannot be kept, each with its dotted path (at most
 * 20). `opaque` says which values are not text to walk (bytes, a stream): the edge knows them.
 */
export const unstorableTextErrors = (
  value: unknown,
  opaque: (value: object) => boolean = () => false,
): Array<{ field: string; message: string }> => {
  const out: Array<{ field: string; message: string }> = [];
  const walk = (v: unknown, path: string, depth: number): void => {
    if (out.length >= MAX_LISTED || depth > MAX_DEPTH) return;
    if (typeof v === "string") {
      const reason = unstorableReason(v);
      if (reason) out.push({ field: path || "body", message: reason });
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, path ? `${path}.${i}` : String(i), depth + 1);
    } else if (v !== null && typeof v === "object" && !opaque(v)) {
      for (const [k, item] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        const reason = unstorableReason(k);
        if (reason) out.push({ field: at, message: reason });
        walk(item, at, depth + 1);
      }
    }
  };
  walk(value, "", 0);
  return out;
};
