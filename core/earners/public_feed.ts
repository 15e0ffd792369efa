import { type Static, type TSchema, Type } from "typebox";
import { fullName, type ShapeUrls, templateImageUrl } from "../badges/mod.ts";
import { badRequest } from "../errors/mod.ts";
import type { BadgeView } from "../issuing/mod.ts";
import { isoDate, MAX_PAGE, MAX_PER, PAGE_SIZE, type PageRequest, pageRequest } from "../shared/mod.ts";
import { publicProfile } from "./account.ts";
import type { EarnerDeps } from "./context.ts";

/**
 * The earner's public badge feed, `GET /users/<name>/badges.json`: the shape public tools (README
 * widgets, portfolio and CV builders) read from services of this kind. Every field here is read by
 * at least one of them; a field Laurel has no value for is left out rather than sent with another
 * type (strictly typed readers check the type of each field they know). `issuer.entities` and
 * `skills` are always arrays: a reader crashes without them.
 */
const Entities = Type.Object({
  entities: Type.Array(Type.Object({ entity: Type.Object({ name: Type.String() }) })),
});
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PublicFeedBadge = Type.Object({
  id: Type.String(),
  /** ISO 8601 with a `+00:00` offset, which both Python's `fromisoformat` and RFC 3339 parsers read. */
  issued_at: Type.String(),
  issued_at_date: Type.String(),
  expires_at: Nullable(Type.String()),
  expires_at_date: Nullable(Type.String()),
  accepted_at: Type.String(),
  updated_at: Type.String(),
  issued_to: Type.String(),
  earner_path: Type.String(),
  image_url: Type.String(),
  badge_url: Type.String(),
  issuer: Entities,
  badge_template: Type.Object({
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    image_url: Type.String(),
    url: Type.Optional(Type.String()),
    global_activity_url: Type.Optional(Type.String()),
    skills: Type.Array(Type.Object({ name: Type.String() })),
    badge_template_activities: Type.Array(Type.Object({ title: Type.String(), url: Nullable(Type.String()) })),
    issuer: Entities,
  }),
});
export type PublicFeedBadge = Static<typeof PublicFeedBadge>;

export const PublicFeed = Type.Object({
  data: Type.Array(PublicFeedBadge),
  metadata: Type.Object({
    count: Type.Integer(),
    current_page: Type.Integer(),
    total_count: Type.Integer(),
    total_pages: Type.Integer(),
    per: Type.Integer(),
    previous_page_url: Nullable(Type.String()),
    next_page_url: Nullable(Type.String()),
  }),
});
export type PublicFeed = Static<typeof PublicFeed>;

/** `2025-03-14T09:30:00.000+00:00`. */
const withOffset = (d: Date): string => d.toISOString().replace(/Z$/, "+00:00");

export interface FeedUrls extends ShapeUrls {
  /** The image a badge whose template has none shows. */
  defaultImage: string;
}

const issuerEntities = (name: string) => ({ entities: [{ entity: { name } }] });

export const publicFeedBadge = (view: BadgeView, earnerPath: string, urls: FeedUrls): PublicFeedBadge => {
  const { badge, template, issuer } = view;
  const image = templateImageUrl(urls, template) ?? urls.defaultImage;
  return {
    id: badge.id,
    issued_at: withOffset(badge.issued_at),
    issued_at_date: isoDate(badge.issued_at),
    expires_at: badge.expires_at ? withOffset(badge.expires_at) : null,
    expires_at_date: badge.expires_at ? isoDate(badge.expires_at) : null,
    // Only accepted badges are public: the last change of state was the acceptance.
    accepted_at: withOffset(badge.state_updated_at),
    updated_at: withOffset(badge.updated_at),
    issued_to: fullName(badge.issued_to_first_name, badge.issued_to_middle_name, badge.issued_to_last_name),
    earner_path: earnerPath,
    image_url: image,
    badge_url: `${urls.publicBase}/badges/${badge.id}`,
    issuer: issuerEntities(issuer.name),
    badge_template: {
      id: template.id,
      name: template.name,
      description: template.description,
      image_url: image,
      ...(template.url ? { url: template.url } : {}),
      ...(template.global_activity_url ? { global_activity_url: template.global_activity_url } : {}),
      skills: template.skills.map((name) => ({ name })),
      badge_template_activities: template.criteria_url ? [{ title: "Criteria", url: template.criteria_url }] : [],
      issuer: issuerEntities(issuer.name),
    },
  };
};

const POSITIVE = /^[1-9][0-9]{0,6}$/;

/**
 * The page a feed request asks for: `page`, and `per` (or `page_size`, as some readers send it) up
 * to `MAX_PER`. Anything else the readers send (`sort`, `filter`) is not the feed's to refuse.
 */
export const feedPageRequest = (query: Readonly<Record<string, unknown>>): PageRequest => {
  const number = (name: string, max: number): number | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value === "string" && POSITIVE.test(value) && Number(value) <= max) return Number(value);
    throw badRequest("The page parameters are invalid", [
      { field: name, message: `${name} must be an integer from 1 to ${max}` },
    ]);
  };
  const page = number("page", MAX_PAGE);
  const per = number("per", MAX_PER) ?? number("page_size", MAX_PER) ?? PAGE_SIZE;
  return pageRequest(page, per);
};

/**
 * One page of the earner's public badges, newest issued first: accepted and public only, of a
 * public profile (404 otherwise, as for an unknown name). `who` is the name the request used.
 */
export const publicBadgeFeed = async (
  deps: Pick<EarnerDeps, "store">,
  who: string,
  req: PageRequest,
  urls: FeedUrls,
): Promise<{ items: PublicFeedBadge[]; total: number }> => {
  const { account, badges } = await publicProfile(deps, who);
  const earnerPath = `/users/${encodeURIComponent(account.vanity_name ?? account.user.id)}`;
  return {
    items: badges.slice(req.offset, req.offset + req.per).map((view) => publicFeedBadge(view, earnerPath, urls)),
    total: badges.length,
  };
};
