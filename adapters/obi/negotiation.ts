export const LD_JSON = "application/ld+json";
export const JSON_TYPE = "application/json";
export type ObiMediaType = typeof LD_JSON | typeof JSON_TYPE;

interface Range {
  type: string;
  q: number;
}

const parseAccept = (header: string): Range[] =>
  header.split(",").map((part) => {
    const [type = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(value) ? value : 0 };
  });

const quality = (ranges: Range[], type: string): number => {
  const [major] = type.split("/");
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s = r.type === type ? 2 : r.type === `${major}/*` ? 1 : r.type === "*/*" ? 0 : -1;
    if (s > specificity) {
      specificity = s;
      best = r.q;
    }
  }
  return specificity === -1 ? 0 : best;
};

/**
 * JSON-LD by default, and whenever the client accepts it at all (wildcards included);
 * plain JSON only when that is accepted and JSON-LD is not. A client that accepts neither still
 * gets JSON-LD rather than a 406, as OB verifiers expect.
 */
export const obiMediaType = (accept: string | undefined): ObiMediaType => {
  if (!accept) return LD_JSON;
  const ranges = parseAccept(accept);
  return quality(ranges, LD_JSON) === 0 && quality(ranges, JSON_TYPE) > 0 ? JSON_TYPE : LD_JSON;
};

/**
 * Whether a client asks for a status list as JSON-LD with an embedded proof rather than as a
 * VC-JWT: it names `application/ld+json`, `application/vc` or `application/json` (as JSON-LD
 * document loaders do) with a higher preference than `application/vc+jwt`. No Accept, wildcards
 * alone or a tie keep the VC-JWT, which every credential's status names first.
 */
export const prefersLinkedData = (accept: string | undefined): boolean => {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const named = (type: string): number => Math.max(0, ...ranges.filter((r) => r.type === type).map((r) => r.q));
  return Math.max(named(LD_JSON), named("application/vc"), named(JSON_TYPE)) > named("application/vc+jwt");
};

/** RFC 9110 §13.1.2: weak comparison of each listed tag, or `*`. */
export const matchesIfNoneMatch = (header: string | undefined, etag: string): boolean => {
  if (!header) return false;
  const plain = (t: string) => t.trim().replace(/^W\//, "");
  const wanted = plain(etag);
  return header.split(",").some((t) => t.trim() === "*" || plain(t) === wanted);
};
