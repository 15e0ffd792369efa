import type { BadgeRecord } from "../badges/mod.ts";
import type { GrantRecord } from "../connect/mod.ts";
import { fail, ok, type Result, validationFailed } from "../errors/mod.ts";

/** The most credentials one page of getCredentials holds, and what a request without `limit` gets. */
export const MAX_CREDENTIALS_LIMIT = 100;
export const DEFAULT_CREDENTIALS_LIMIT = 50;

export interface CredentialQuery {
  limit: number;
  offset: number;
  since: Date | null;
}

const INTEGER = /^\d{1,9}$/;
// YYYY-MM-DDThh:mm:ss with optional fraction and offset (ISO 8601 as RFC 3339 profiles it).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

/** Reads getCredentials' `limit`, `offset` and `since`; a failure names the parameter. */
export const readCredentialQuery = (
  query: Record<string, unknown>,
  parseDate: (iso: string) => Date | null,
): Result<CredentialQuery, string> => {
  const one = (k: string): string | null | "bad" => {
    const v = query[k];
    if (v === undefined) return null;
    return typeof v === "string" ? v : "bad";
  };
  const limit = one("limit");
  const offset = one("offset");
  const since = one("since");
  if (limit !== null && (limit === "bad" || !INTEGER.test(limit) || Number(limit) < 1)) {
    return fail("limit must be a positive integer");
  }
  if (offset !== null && (offset === "bad" || !INTEGER.test(offset)))
    return fail("offset must be an integer, 0 or more");
  let sinceDate: Date | null = null;
  if (since !== null) {
    sinceDate = since === "bad" || !DATE_TIME.test(since) ? null : parseDate(since);
    if (sinceDate === null) return fail("since must be a date and time (YYYY-MM-DDThh:mm:ssZ)");
  }
  return ok({
    limit: Math.min(limit === null ? DEFAULT_CREDENTIALS_LIMIT : Number(limit), MAX_CREDENTIALS_LIMIT),
    offset: offset === null ? 0 : Number(offset),
    since: sinceDate,
  });
};

/**
 * The earner's badges a platform may read: accepted ones, and of those the ones kept off the
 * public profile only when the earner allowed it on the consent page.
 */
export const visibleToPlatform = (
  badge: Pick<BadgeRecord, "state" | "public">,
  grant: Pick<GrantRecord, "private_badges">,
) => badge.state === "accepted" && (badge.public || grant.private_badges);

/** One page of the visible badges, oldest issued first so offsets stay put as new ones arrive. */
export const credentialPage = <V extends { badge: BadgeRecord }>(
  views: readonly V[],
  grant: Pick<GrantRecord, "private_badges">,
  query: CredentialQuery,
): { page: V[]; total: number } => {
  const visible = views
    .filter((v) => visibleToPlatform(v.badge, grant))
    .filter((v) => query.since === null || v.badge.issued_at.getTime() > query.since.getTime())
    .sort((a, b) => a.badge.issued_at.getTime() - b.badge.issued_at.getTime() || a.badge.id.localeCompare(b.badge.id));
  return { page: visible.slice(query.offset, query.offset + query.limit), total: visible.length };
};

export type PageRelation = "first" | "last" | "next" | "prev";

/**
 * The offsets of the `Link` header's relations: `first` and `last` always, `next` while
 * results remain, `prev` when the offset is past zero.
 */
export const pageRelations = (query: Pick<CredentialQuery, "limit" | "offset">, total: number) => {
  const { limit, offset } = query;
  const last = total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
  const relations: { rel: PageRelation; offset: number }[] = [];
  if (offset + limit < total) relations.push({ rel: "next", offset: offset + limit });
  relations.push({ rel: "last", offset: last });
  relations.push({ rel: "first", offset: 0 });
  if (offset > 0) relations.push({ rel: "prev", offset: Math.max(0, offset - limit) });
  return relations;
};

/** The earner's Open Badges profile: their subject identifier (as in their credentials) and name. */
export const earnerProfile = (
  subjectId: string,
  user: { first_name: string; last_name: string },
  contexts: readonly string[],
) => ({
  "@context": [...contexts],
  id: `urn:uuid:${subjectId}`,
  type: ["Profile"],
  name: `${user.first_name} ${user.last_name}`.trim(),
  givenName: user.first_name,
  ...(user.last_name ? { familyName: user.last_name } : {}),
});

/** The name a putProfile body gives: `givenName` and `familyName`, else `name` as the given name. */
export const profileNameOf = (body: unknown): { first_name: string; last_name: string } => {
  const b = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const text = (k: string) => (typeof b[k] === "string" ? (b[k] as string) : null);
  const given = text("givenName");
  if (given !== null) return { first_name: given, last_name: text("familyName") ?? "" };
  const name = text("name");
  if (name === null) throw validationFailed("A Profile with name or givenName is required");
  return { first_name: name, last_name: "" };
};
