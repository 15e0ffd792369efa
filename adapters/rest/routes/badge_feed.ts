import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { BADGE_LIST, BadgeJsonSchema, badgeJson } from "../../../core/badges/mod.ts";
import { type BadgeView, searchIssuedBadges } from "../../../core/issuing/mod.ts";
import { listQuerySchema } from "../../../core/listing/mod.ts";
import { ErrorBody } from "../../http/mod.ts";
import type { RestDeps } from "../deps.ts";
import { OrganizationParams } from "../envelope.ts";
import { freshReads, sendFreshBody } from "../fresh_reads.ts";
import { guard } from "../guard.ts";
import { listValidatorCompiler, readListQuery } from "../list_query.ts";

const FeedResponse = Type.Object({
  data: Type.Array(BadgeJsonSchema),
  metadata: Type.Object({
    count: Type.Integer(),
    per: Type.Integer(),
    next_page_url: Type.Union([Type.String(), Type.Null()]),
  }),
});

const FEED_DESCRIPTION =
  "Every badge of the organization matching the filters, oldest issued first (by id, which follows issue order), 50 a page unless asked otherwise, for integrators syncing all their badges. `per` (or `page_size`) sets the page size, 1 to 100. The filters are those of the badge list, in the same three forms, and `start_date` (included) and `end_date` (excluded) bound `issued_at` as `issued_at_min` does; there is no `sort` and no `page` (either is ignored). `next_page_url` carries an opaque `cursor` (and the filters as sent) and is null on the last page; no totals are counted, so every page costs the same at any depth. A badge changed after its page was read is not sent again: follow changes with `updated_at_min` on a later sync. Errors are those of the lists (400 naming the known keys; a cursor this feed did not give is 400 too).";

/** The high-volume badge feed: keyset pages over the badge list's filters. */
export const badgeFeedRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "issued_badges");
  const reads = freshReads<Buffer>();
  const issuing = deps.badges.issuing;
  const json = (v: BadgeView) => badgeJson(v.badge, v.template, v.issuer, issuing.urls, v.authorizedIssuer);

  app.get("/organizations/:organization_id/high_volume_issued_badge_search", {
    onRequest,
    schema: {
      tags: ["Badges"],
      security: [{ basic: [] }, { bearer: [] }],
      summary: "Every matching badge in issue order, with an opaque cursor (no totals)",
      description: FEED_DESCRIPTION,
      params: OrganizationParams,
      querystring: listQuerySchema(BADGE_LIST, {
        paged: false,
        sortable: false,
        extra: {
          cursor: Type.Optional(Type.String({ description: "From a previous page's `next_page_url`; opaque" })),
        },
      }),
      response: { 200: FeedResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
    },
    validatorCompiler: listValidatorCompiler,
    handler: async (request, reply) => {
      const { organization_id } = request.params;
      const query = readListQuery(BADGE_LIST, request, { extra: ["cursor"], sortable: false, paged: false });
      return sendFreshBody(reads, reply, `${organization_id} ${request.url}`, async () => {
        const page = await searchIssuedBadges(issuing, organization_id, query, query.extra.cursor ?? null, query.per);
        let next: string | null = null;
        if (page.next) {
          const url = new URL(request.url, origin);
          url.searchParams.set("cursor", page.next);
          next = url.toString();
        }
        return {
          data: page.items.map(json),
          metadata: { count: page.items.length, per: query.per, next_page_url: next },
        };
      });
    },
  });
};
