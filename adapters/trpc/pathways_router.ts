import { TRPCError } from "@trpc/server";
import { Type } from "typebox";
import {
  changeIssuerAuthorization,
  issuerAuthorizationJson,
  listIssuerAuthorizations,
} from "../../core/issuer_authorizations/mod.ts";
import type { MemberActor } from "../../core/members/mod.ts";
import {
  archivePathway,
  listPathways,
  PATHWAY_STATES,
  PROGRESS_STATES,
  pathwayEarnerJson,
  pathwayEarners,
  pathwayJson,
} from "../../core/pathways/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const OPERATOR: MemberActor = { kind: "operator" };
const Uuid = Type.String({ format: "uuid" });
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 }));
const notServed = (what: string) => new TRPCError({ code: "NOT_FOUND", message: `${what} are not served here` });
const metadata = (req: ReturnType<typeof pageRequest>, shown: number, total: number) =>
  pageMetadata(req, shown, total, (p) => `?page=${p}`);

/**
 * An organization's pathways and their earners for the operator, and archiving one: the API's use
 * cases, acting as the operator (audited as such).
 */
export const pathwaysRouter = router({
  list: adminProcedure
    .input(
      standard(
        Type.Object(
          { organization_id: Uuid, state: Type.Optional(Type.Enum(PATHWAY_STATES)), page: Page },
          { additionalProperties: false },
        ),
      ),
    )
    .query(async ({ ctx, input }) => {
      const store = ctx.deps.pathways;
      if (!store) throw notServed("Pathways");
      const req = pageRequest(input.page);
      const filters = input.state ? { state: { kind: "values" as const, values: [input.state] } } : {};
      const page = await listPathways(
        store,
        OPERATOR,
        input.organization_id,
        { filters, sort: [{ key: "created_at", desc: true }], page: req.page },
        req,
      );
      return { data: page.items.map(pathwayJson), metadata: metadata(req, page.items.length, page.total) };
    }),
  earners: adminProcedure
    .input(
      standard(
        Type.Object(
          {
            organization_id: Uuid,
            pathway_id: Uuid,
            state: Type.Optional(Type.Enum(PROGRESS_STATES)),
            page: Page,
          },
          { additionalProperties: false },
        ),
      ),
    )
    .query(async ({ ctx, input }) => {
      const store = ctx.deps.pathways;
      if (!store) throw notServed("Pathways");
      const req = pageRequest(input.page);
      const filters = input.state ? { state: { kind: "values" as const, values: [input.state] } } : {};
      const { pathway, items, total } = await pathwayEarners(
        store,
        OPERATOR,
        input.organization_id,
        input.pathway_id,
        { filters, sort: [{ key: "updated_at", desc: true }], page: req.page },
        req,
      );
      return { data: items.map((r) => pathwayEarnerJson(pathway, r)), metadata: metadata(req, items.length, total) };
    }),
  archive: adminProcedure
    .input(standard(Type.Object({ organization_id: Uuid, pathway_id: Uuid }, { additionalProperties: false })))
    .mutation(async ({ ctx, input }) => {
      const store = ctx.deps.pathways;
      if (!store) throw notServed("Pathways");
      const archived = await archivePathway(
        store,
        { now: ctx.deps.clock(), newId: ctx.deps.newId },
        OPERATOR,
        null,
        input.organization_id,
        input.pathway_id,
      );
      return pathwayJson(archived);
    }),
});

const Side = Type.Union([Type.Literal("grantor"), Type.Literal("issuer")]);

/**
 * Authorized issuers for the operator: an organization's authorizations on either side (`grantor`:
 * those it granted; `issuer`: those it received), and ending one (as that side ends it).
 */
export const issuerAuthorizationsRouter = router({
  list: adminProcedure
    .input(standard(Type.Object({ organization_id: Uuid, side: Side, page: Page }, { additionalProperties: false })))
    .query(async ({ ctx, input }) => {
      const store = ctx.deps.issuerAuthorizations;
      if (!store) throw notServed("Authorized issuers");
      const req = pageRequest(input.page);
      const page = await listIssuerAuthorizations(store, OPERATOR, input.organization_id, input.side, req);
      return {
        data: page.items.map(issuerAuthorizationJson),
        metadata: metadata(req, page.items.length, page.total),
      };
    }),
  end: adminProcedure
    .input(
      standard(
        Type.Object(
          { organization_id: Uuid, side: Side, issuer_authorization_id: Uuid },
          { additionalProperties: false },
        ),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const store = ctx.deps.issuerAuthorizations;
      if (!store) throw notServed("Authorized issuers");
      const ended = await changeIssuerAuthorization(
        store,
        { now: ctx.deps.clock(), newId: ctx.deps.newId },
        OPERATOR,
        null,
        input.organization_id,
        input.side,
        input.issuer_authorization_id,
        "end",
      );
      return issuerAuthorizationJson(ended);
    }),
});
