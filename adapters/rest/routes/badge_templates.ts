import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import {
  BadgeTemplateJsonSchema,
  badgeTemplateJson,
  TEMPLATE_LIST,
  TemplateCreateBody,
  TemplateUpdateBody,
} from "../../../core/badges/mod.ts";
import { notFound } from "../../../core/errors/mod.ts";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  type TemplateView,
  templateAction,
  updateTemplate,
} from "../../../core/issuing/mod.ts";
import { listQuerySchema } from "../../../core/listing/mod.ts";
import { pageMetadata, pageRequest } from "../../../core/shared/mod.ts";
import { issuingContext } from "../badge_deps.ts";
import type { RestDeps } from "../deps.ts";
import { Many, many, One, OrganizationParams, one, pageUrlFor } from "../envelope.ts";
import { ErrorBody } from "../errors.ts";
import { freshReads, sendFreshBody } from "../fresh_reads.ts";
import { guard } from "../guard.ts";
import { LIST_DESCRIPTION, listValidatorCompiler, readListQuery } from "../list_query.ts";

const TemplateParams = Type.Object({
  organization_id: Type.String({ format: "uuid" }),
  badge_template_id: Type.String({ format: "uuid" }),
});
type TemplateParams = { organization_id: string; badge_template_id: string };

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody };
const bodyErrors = { ...errors, 413: ErrorBody, 415: ErrorBody };
const tags = ["Badge templates"];
const security: Array<Record<string, string[]>> = [{ basic: [] }, { bearer: [] }];

/** Badge templates, scope `badge_templates`. */
export const badgeTemplateRoutes = (deps: RestDeps, origin: string) => async (app: FastifyInstance) => {
  const onRequest = guard(deps.authenticator, deps.clock, "badge_templates");
  const base = "/organizations/:organization_id/badge_templates";
  const lists = freshReads<Buffer>();
  const issuing = deps.badges.issuing;
  const json = (v: TemplateView) => badgeTemplateJson(v.template, v.owner, issuing.urls);
  const ids = (request: { params: unknown }) => request.params as TemplateParams;

  app.post(base, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Create a badge template (a draft unless `state` is `active`)",
      params: OrganizationParams,
      body: TemplateCreateBody,
      response: { 201: One(BadgeTemplateJsonSchema), ...bodyErrors },
    },
    handler: async (request, reply) => {
      const { organization_id } = request.params as { organization_id: string };
      const owner = await deps.organizations.get(organization_id);
      if (!owner) throw notFound("Organization");
      const view = await createTemplate(
        issuing,
        issuingContext(deps, request),
        owner,
        request.body as TemplateCreateBody,
      );
      reply
        .code(201)
        .header("location", `${deps.baseUrl}/organizations/${organization_id}/badge_templates/${view.template.id}`);
      return one(json(view));
    },
  });

  app.get(base, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "List badge templates, newest first unless sorted",
      description: LIST_DESCRIPTION,
      params: OrganizationParams,
      querystring: listQuerySchema(TEMPLATE_LIST),
      response: { 200: Many(BadgeTemplateJsonSchema), ...errors },
    },
    validatorCompiler: listValidatorCompiler,
    handler: async (request, reply) => {
      const { organization_id } = request.params as { organization_id: string };
      const query = readListQuery(TEMPLATE_LIST, request);
      const req = pageRequest(query.page);
      // The body depends on the organization and the URL (filters, page, links) only.
      return sendFreshBody(lists, reply, `${organization_id} ${request.url}`, async () => {
        const page = await listTemplates(issuing, organization_id, query, req);
        return many(
          page.items.map(json),
          pageMetadata(req, page.items.length, page.total, pageUrlFor(origin, request.url)),
        );
      });
    },
  });

  app.get(`${base}/:badge_template_id`, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Get a badge template",
      params: TemplateParams,
      response: { 200: One(BadgeTemplateJsonSchema), ...errors },
    },
    handler: async (request) => {
      const p = ids(request);
      return one(json(await getTemplate(issuing, p.organization_id, p.badge_template_id)));
    },
  });

  app.put(`${base}/:badge_template_id`, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Update a badge template; absent fields are kept, `state: active` activates a draft",
      params: TemplateParams,
      body: TemplateUpdateBody,
      response: { 200: One(BadgeTemplateJsonSchema), ...bodyErrors },
    },
    handler: async (request) => {
      const p = ids(request);
      const body = (request.body ?? {}) as TemplateUpdateBody;
      return one(
        json(
          await updateTemplate(issuing, issuingContext(deps, request), p.organization_id, p.badge_template_id, body),
        ),
      );
    },
  });

  for (const action of ["archive", "unarchive"] as const) {
    app.put(`${base}/:badge_template_id/${action}`, {
      onRequest,
      schema: {
        tags,
        security,
        summary: action === "archive" ? "Archive a badge template (it stops issuing)" : "Unarchive a badge template",
        params: TemplateParams,
        response: { 200: One(BadgeTemplateJsonSchema), ...errors },
      },
      handler: async (request) => {
        const p = ids(request);
        const ctx = issuingContext(deps, request);
        return one(json(await templateAction(issuing, ctx, p.organization_id, p.badge_template_id, action)));
      },
    });
  }

  app.delete(`${base}/:badge_template_id`, {
    onRequest,
    schema: {
      tags,
      security,
      summary: "Delete a badge template that has issued no badges",
      params: TemplateParams,
      response: { 204: Type.Null(), ...errors },
    },
    handler: async (request, reply) => {
      const p = ids(request);
      await deleteTemplate(issuing, issuingContext(deps, request), p.organization_id, p.badge_template_id);
      return reply.code(204).send();
    },
  });
};
