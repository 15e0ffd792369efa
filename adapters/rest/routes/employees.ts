import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { EmploymentSchema, ReducedEmploymentSchema } from "../../../core/events/mod.ts";
import {
  createEmployee,
  deleteEmployee,
  EMPLOYEE_LIST,
  EmployeeBatchBody,
  type EmployeeContext,
  EmployeeCreateBody,
  type EmployeeStore,
  EmployeeUpdateBody,
  type EmployeeView,
  EmployeeBatchEnvelope as EnvelopeSchema,
  ExternalBadgeSchema,
  type ExternalBadgeStore,
  employeeExternalBadges,
  employmentOf,
  getEmployee,
  type InvitationDeps,
  listEmployees,
  SendInvitationsBody,
  sendInvitations,
  updateEmployee,
  upsertEmployees,
} from "../../../core/workforce/mod.ts";
import { ErrorBody, errorBody } from "../../http/mod.ts";
import type { RestDeps } from "../deps.ts";
import { Many, One, OrganizationParams, one, PageQuery, pageOf } from "../envelope.ts";
import { guard } from "../guard.ts";
import { LIST_DESCRIPTION } from "../list_query.ts";
import { BODY_ERRORS, batchValidator, created, ERRORS, pageBody, resourceRoutes } from "../route_kit.ts";

/**
 * An employment as an organization may read it: in full when it is authorized for workforce data,
 * else reduced to `id`, `email`, `external_id` (the full shape is tried first: the reduced one
 * matches every employment).
 */
const EmploymentView = Type.Union([EmploymentSchema, ReducedEmploymentSchema], {
  description:
    "The employment in full when the organization is authorized for workforce data; otherwise only `id`, `email` and `external_id`.",
});

/** Employee records over REST and their invitations, passed in by the app. */
export interface EmployeeRestDeps {
  store: EmployeeStore;
  invitations: InvitationDeps;
  /** The external badges of connected employees; absent: the route answers an empty list. */
  externalBadges?: Pick<ExternalBadgeStore, "pageForUser">;
}

const UpsertItem = Type.Union([
  Type.Object({
    index: Type.Integer(),
    status: Type.Union([Type.Literal("created"), Type.Literal("updated"), Type.Literal("unchanged")]),
    id: Type.String({ format: "uuid" }),
    external_id: Type.String(),
  }),
  Type.Object({
    index: Type.Integer(),
    status: Type.Literal("failed"),
    external_id: Type.Union([Type.String(), Type.Null()]),
    error: ErrorBody.properties.data,
  }),
]);
const BatchResponse = Type.Object({
  data: Type.Array(UpsertItem),
  metadata: Type.Object({
    created_count: Type.Integer(),
    updated_count: Type.Integer(),
    unchanged_count: Type.Integer(),
    failed_count: Type.Integer(),
  }),
});
const InvitationsResponse = One(
  Type.Object({ sent_count: Type.Integer(), sent: Type.Array(Type.String()), failed: Type.Array(Type.String()) }),
);

/** A batch of 1,000 full records is larger than the API's usual 1 MiB. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/** Employee records (each answered as its employment), scope `workforce`. */
export const employeeRoutes = (deps: RestDeps, origin: string) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = guard(deps.authenticator, deps.clock, "workforce");
  const employees = resourceRoutes(app, origin, onRequest, "employees/:employee_id", ["Employees"]);
  const { base, schema } = employees;
  const { store } = deps.employees;
  const ctx = (): EmployeeContext => ({
    now: deps.clock(),
    newId: deps.badges.newId,
    newEventId: deps.badges.newEventId,
    urls: deps.badges.issuing.urls,
  });
  const json = (v: EmployeeView) => employmentOf(v, deps.badges.issuing.urls);

  app.post(
    base,
    employees.creating(
      "Create an employee record (records employment.created)",
      EmployeeCreateBody,
      EmploymentView,
      async (request, reply) => {
        const view = await createEmployee(store, ctx(), request.params.organization_id, request.body);
        const location = `${deps.baseUrl}/organizations/${request.params.organization_id}/employees/${view.record.id}`;
        return created(reply, json(view), location);
      },
    ),
  );

  employees.list(
    "List employee records, newest first",
    EmploymentView,
    EMPLOYEE_LIST,
    (organizationId, query, req) => listEmployees(store, organizationId, query, req),
    json,
    {
      description: `Filters: \`name_or_email\` (substring of "first last" or the e-mail), \`employee_state\` (created, pending, accepted, rejected), \`team\`, \`department\`, \`external_id\` (exact). Sorts: email, created_at, first_name, last_name. Without workforce authorization each record is only \`id\`, \`email\`, \`external_id\`, and the \`employee_state\` filter is refused (403). ${LIST_DESCRIPTION}`,
      // Each record's shape depends on the organization's workforce authorization, not on the URL alone.
      fresh: false,
    },
  );

  app.post(`${base}/batch`, {
    onRequest,
    bodyLimit: BATCH_BODY_LIMIT,
    schema: schema({
      summary: "Create or update up to 1,000 employee records by external_id",
      description:
        "Each item has the body of a create and is matched on `external_id`: a new one is created, a known one updated (absent fields kept). An item that changes nothing is `unchanged` and records no event; a bad item is `failed` with its errors (`employees.<i>.<field>`) and the others go ahead.",
      params: OrganizationParams,
      body: EmployeeBatchBody,
      response: { 200: BatchResponse, ...BODY_ERRORS },
    }),
    validatorCompiler: batchValidator(EnvelopeSchema),
    handler: async (request) => {
      const items = request.body.employees;
      const results = await upsertEmployees(store, ctx(), request.params.organization_id, items);
      const count = (status: string) => results.filter((r) => r.status === status).length;
      return {
        data: results.map((r) =>
          r.status === "failed" ? { ...r, error: errorBody(r.error.code, r.error.message, r.error.errors).data } : r,
        ),
        metadata: {
          created_count: count("created"),
          updated_count: count("updated"),
          unchanged_count: count("unchanged"),
          failed_count: count("failed"),
        },
      };
    },
  });

  app.post(`${base}/send_invitations`, {
    onRequest,
    schema: schema({
      summary: "E-mail employees an invitation to connect (the listed ids, or `all` still `created`)",
      params: OrganizationParams,
      body: SendInvitationsBody,
      response: { 200: InvitationsResponse, ...BODY_ERRORS, 429: ErrorBody },
    }),
    handler: async (request) => {
      const result = await sendInvitations(
        deps.employees.invitations,
        deps.clock(),
        request.params.organization_id,
        request.body,
      );
      return one({ sent_count: result.sent.length, ...result });
    },
  });

  employees.get("Get an employee record", EmploymentView, async (organizationId, id) =>
    json(await getEmployee(store, organizationId, id)),
  );

  app.get(`${base}/:employee_id/external_badges`, {
    onRequest,
    schema: schema({
      summary: "List an employee's badges from other issuers, newest first",
      description:
        "Badges the employee added on their wallet from other issuers (Open Badges 2.0 assertions and 3.0 credentials), each with `verification_status` (`validated` or `unvalidated`) and, when unvalidated, `verification_reason`. The issuer Laurel verified is `issuer_origin` (the origin of the issuer's id, where its profile or key was found); `claimed_issuer_name` and `claimed_issuer_url` are the badge's own unverified claims. Laurel verifies each again daily. Empty until the employee has accepted the connection (`employee_state` `accepted`); 403 while the organization is not authorized for workforce data.",
      params: employees.params,
      querystring: PageQuery,
      response: { 200: Many(ExternalBadgeSchema), ...ERRORS },
    }),
    handler: async (request) => {
      const p = request.params;
      const req = pageOf(request.query);
      const [record, authorized] = await Promise.all([
        store.get(p.organization_id, p.employee_id),
        store.workforceAuthorized(p.organization_id),
      ]);
      const none = { pageForUser: async () => ({ items: [], total: 0 }) };
      const page = await employeeExternalBadges(deps.employees.externalBadges ?? none, record, req, authorized);
      return pageBody(origin, request.url, req, page, (badge) => badge);
    },
  });

  app.put(
    `${base}/:employee_id`,
    employees.changing(
      "Update an employee record; absent fields are kept (records employment.updated on a change)",
      EmployeeUpdateBody,
      EmploymentView,
      async (request) => {
        const p = request.params;
        const body = request.body ?? {};
        return one(json(await updateEmployee(store, ctx(), p.organization_id, p.employee_id, body)));
      },
    ),
  );

  employees.remove("Delete an employee record (records employment.deleted)", (organizationId, id) =>
    deleteEmployee(store, ctx(), organizationId, id),
  );
};
