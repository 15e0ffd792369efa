import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  FastifySchemaCompiler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from "fastify";
import { type Static, type TSchema, type TString, Type } from "typebox";
import type { OrganizationStore } from "../../core/credentials/mod.ts";
import { notFound } from "../../core/errors/mod.ts";
import { type ListSpec, listQuerySchema, type ParsedList } from "../../core/listing/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import { type PageRequest, pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { ErrorBody } from "../http/mod.ts";
import { Many, many, One, OrganizationParams, one, PageQuery, pageOf, pageUrlFor } from "./envelope.ts";
import { type BodyVersion, type FreshReads, freshReads, keptBodies, sendFreshBody } from "./fresh_reads.ts";
import { LIST_DESCRIPTION, listValidatorCompiler, readListQuery } from "./list_query.ts";

/**
 * What the organization's resource routes (`/organizations/:organization_id/...`) have in common:
 * their documented answers, their parameters, and the bodies and statuses of a page, a creation
 * and a deletion, so that each route file says only what is its own.
 */

/** The schemes those routes accept: an authorization token (HTTP Basic) or an access token (Bearer). */
export const SECURITY: Array<Record<string, string[]>> = [{ basic: [] }, { bearer: [] }];

/** The error answers of a route that reads. */
export const READ_ERRORS = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
/** ...of a route whose input core may refuse (422). */
export const ERRORS = { ...READ_ERRORS, 422: ErrorBody };
/** ...of a route that reads a body (too large: 413, not JSON: 415). */
export const BODY_ERRORS = { ...ERRORS, 413: ErrorBody, 415: ErrorBody };

/**
 * A route's OpenAPI schema with the family's tags and the usual security; the rest (`params`,
 * `body`, `response`...) is passed through as given, so the type provider still reads it.
 */
export const documented =
  (tags: string[]) =>
  <S extends object>(schema: S) => ({ tags, security: SECURITY, ...schema });

/** The path parameters of one resource of an organization: both ids are UUIDs. */
export const resourceParams = <K extends string>(key: K) =>
  Type.Object({
    organization_id: Type.String({ format: "uuid" }),
    // A computed key is widened to `string`: the record type keeps the route's own name.
    ...({ [key]: Type.String({ format: "uuid" }) } as Record<K, TString>),
  });

/** The body of one page of a list: its items as JSON and links to the pages beside it. */
export const pageBody = <T, J>(
  origin: string,
  requestUrl: string,
  req: PageRequest,
  page: { items: T[]; total: number },
  toJson: (item: T) => J,
) => many(page.items.map(toJson), pageMetadata(req, page.items.length, page.total, pageUrlFor(origin, requestUrl)));

/**
 * The validator of a batch route: its documentation gives the full item schema, but its body is
 * validated as `envelope` (the items' list, not their fields), so that core checks each item on its
 * own and one bad item does not refuse the batch.
 */
export const batchValidator =
  (envelope: TSchema): FastifySchemaCompiler<TSchema> =>
  (route) =>
    TypeBoxValidatorCompiler(route.httpPart === "body" ? { ...route, schema: envelope } : route);

/** A 201 answer: the created resource, and its address in `Location` when it has one of its own. */
export const created = <T>(reply: FastifyReply, data: T, location?: string) => {
  reply.code(201);
  if (location !== undefined) reply.header("location", location);
  return one(data);
};

/** The 204 answer of a deletion. */
export const noContent = (reply: FastifyReply): FastifyReply => reply.code(204).send(null);

/** The organization the path names; 404 when there is none. */
export const organizationOf = async (
  organizations: Pick<OrganizationStore, "get">,
  id: string,
): Promise<OrganizationRecord> => {
  const org = await organizations.get(id);
  if (!org) throw notFound("Organization");
  return org;
};

/** A Fastify instance whose routes read their request through the TypeBox type provider. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The handler of a route whose request and answer the type provider reads from the schema `S`. */
type TypedHandler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  unknown,
  S,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** The answer of a route that reads a JSON body: 201 when it creates, 200 when it changes. */
type BodyStatus = 200 | 201;

/**
 * The schema of a route that reads a JSON body and answers one resource with `status`: what the type
 * provider reads for its request and its answer.
 */
type BodySchema<S extends BodyStatus, P extends TSchema, B extends TSchema, T extends TSchema> = {
  tags: string[];
  security: typeof SECURITY;
  summary: string;
  params: P;
  body: B;
  response: Record<S, ReturnType<typeof One<T>>> & typeof BODY_ERRORS;
};

/** The handler of a route documented by a `BodySchema`. */
type BodyHandler<S extends BodyStatus, P extends TSchema, B extends TSchema, T extends TSchema> = TypedHandler<
  BodySchema<S, P, B, T>
>;

/** Under a family's `tags`, the schema of its routes that answer one resource with `status`; `more` adds a description, content types... */
const bodySchema =
  <S extends BodyStatus>(status: S, tags: string[]) =>
  <P extends TSchema, B extends TSchema, T extends TSchema>(
    summary: string,
    params: P,
    body: B,
    item: T,
    more?: object,
  ): BodySchema<S, P, B, T> =>
    documented(tags)({
      summary,
      ...more,
      params,
      body,
      // A computed key is widened to `number`: the record type keeps the status the type provider reads.
      response: { ...({ [status]: One(item) } as Record<S, ReturnType<typeof One<T>>>), ...BODY_ERRORS },
    });

/**
 * The documentation of a family of routes: `schema` gives any route's with the family's tags and
 * security; `creation` and `change` that of a route that reads a JSON body and answers one resource.
 */
export const familySchemas = (tags: string[]) => ({
  schema: documented(tags),
  creation: bodySchema(201, tags),
  change: bodySchema(200, tags),
});

/**
 * A page's body as `read` gives it; with `lists`, identical requests (the same organization and URL)
 * share one strictly fresh read, for a body that depends on nothing else.
 */
const sendPage = (
  lists: FreshReads<Buffer> | null,
  reply: FastifyReply,
  organizationId: string,
  url: string,
  read: () => Promise<unknown>,
  versioned?: BodyVersion,
) => (lists ? sendFreshBody(lists, reply, `${organizationId} ${url}`, read, versioned) : read());

/** The path parameters of one resource: the schema checks them (UUIDs); here they are the strings of the path. */
type ItemRoute = { Params: { organization_id: string } & Record<string, string> };
/** ...and of a page of the organization's resources. */
type PageRoute = { Params: { organization_id: string }; Querystring: { page?: number } };

/**
 * The routes of one kind of an organization's resources, behind one `onRequest` guard and documented
 * under `tags`: `base` lists and creates, `base/:key` reads, changes and deletes. `page`, `list`, `get`
 * and `remove` declare a whole route from its summary and its core call; `creating` and `changing`
 * give the guard and schema of a route whose handler is its own, and the family's schemas
 * (`familySchemas`) document any other route.
 *
 * Fastify cannot resolve a schema's static type inside a function generic over that schema: the
 * routes this declares read their request through their route generic, and `creating` and `changing`
 * return their options for the route file to declare, where the type provider reads them as usual.
 */
export const resourceRoutes = <K extends string>(
  app: TypedApp,
  origin: string,
  onRequest: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
  /** The resource's path below the organization's: `<collection>/:<key>`. */
  path: `${string}/:${K}`,
  tags: string[],
  /** The error answers of its reads and deletions (a family that only reads has no 422). */
  errors: typeof ERRORS | typeof READ_ERRORS = ERRORS,
) => {
  const itemPath = `/organizations/:organization_id/${path}`;
  const base = itemPath.slice(0, itemPath.lastIndexOf("/:"));
  // The path's type ends in `/:${K}`: what follows its last `/:` is that key.
  const key = itemPath.slice(itemPath.lastIndexOf("/:") + 2) as K;
  const schemas = familySchemas(tags);
  const { schema } = schemas;
  const params = resourceParams(key);
  /** The options of a route on `routeParams` that reads a JSON body and answers one resource with `status`. */
  const bodyRoute =
    <S extends BodyStatus, P extends TSchema>(status: S, routeParams: P) =>
    <B extends TSchema, T extends TSchema>(
      summary: string,
      body: B,
      item: T,
      handler: BodyHandler<S, P, B, T>,
      more?: object,
    ) => ({ onRequest, schema: bodySchema(status, tags)(summary, routeParams, body, item, more), handler });
  return {
    ...schemas,
    base,
    params,
    itemPath,

    /**
     * `GET base`: one page (`?page=`) of the organization's resources; `fresh` when its body depends
     * on the organization and the URL only, and `version` when a version of the organization's
     * resources moves with every change to them: a page is then sent again while it has not moved.
     */
    page: <T extends TSchema, V>(
      summary: string,
      item: T,
      read: (
        organizationId: string,
        req: PageRequest,
        request: FastifyRequest,
      ) => Promise<{ items: V[]; total: number }>,
      toJson: (value: V) => Static<T>,
      options: { fresh?: boolean; version?: (organizationId: string) => Promise<number> } = {},
    ) => {
      const lists = options.fresh ? freshReads<Buffer>() : null;
      const versioned = options.version && { kept: keptBodies(), of: options.version };
      app.get<PageRoute, unknown, FastifySchema>(base, {
        onRequest,
        schema: schema({
          summary,
          params: OrganizationParams,
          querystring: PageQuery,
          response: { 200: Many(item), ...errors },
        }),
        handler: async (request, reply) => {
          const { organization_id } = request.params;
          const req = pageOf(request.query);
          return sendPage(
            lists,
            reply,
            organization_id,
            request.url,
            async () => pageBody(origin, request.url, req, await read(organization_id, req, request), toJson),
            versioned && { kept: versioned.kept, version: () => versioned.of(organization_id) },
          );
        },
      });
    },

    /**
     * `GET base`: the organization's resources through the list grammar (filters, sort, page): `read`
     * gives the page, `toJson` each item's JSON. Unless `fresh` is false (a body that depends on more
     * than the organization and the URL), identical requests share one strictly fresh read.
     */
    list: <T extends TSchema, F extends string, S extends string, V>(
      summary: string,
      item: T,
      spec: ListSpec<F, S>,
      read: (
        organizationId: string,
        query: ParsedList<F, S>,
        req: PageRequest,
        request: FastifyRequest,
      ) => Promise<{ items: V[]; total: number }>,
      toJson: (value: V) => Static<T>,
      options: { description?: string; fresh?: boolean } = {},
    ) => {
      const lists = options.fresh === false ? null : freshReads<Buffer>();
      app.get<{ Params: { organization_id: string } }, unknown, FastifySchema>(base, {
        onRequest,
        schema: schema({
          summary,
          description: options.description ?? LIST_DESCRIPTION,
          params: OrganizationParams,
          querystring: listQuerySchema(spec),
          response: { 200: Many(item), ...errors },
        }),
        validatorCompiler: listValidatorCompiler,
        handler: async (request, reply) => {
          const { organization_id } = request.params;
          const query = readListQuery(spec, request);
          const req = pageRequest(query.page, query.per);
          return sendPage(lists, reply, organization_id, request.url, async () =>
            pageBody(origin, request.url, req, await read(organization_id, query, req, request), toJson),
          );
        },
      });
    },

    /**
     * The options of `POST base` creating from a JSON body (201): the guard, the schema, and `handler`,
     * whose request and answer the type provider reads from that schema where the route is declared.
     * `more` adds to the documentation (a description...).
     */
    creating: bodyRoute(201, OrganizationParams),

    /** The options of `PUT base/:key` (or a path below it) changing the resource from a JSON body (200). */
    changing: bodyRoute(200, params),

    /** `GET base/:key`: one resource, as core reads it (404 when there is none). */
    get: <T extends TSchema>(
      summary: string,
      item: T,
      read: (organizationId: string, id: string, request: FastifyRequest) => Promise<Static<T>>,
    ) => {
      app.get<ItemRoute, unknown, FastifySchema>(itemPath, {
        onRequest,
        schema: schema({ summary, params, response: { 200: One(item), ...errors } }),
        handler: async (request) => one(await read(request.params.organization_id, request.params[key], request)),
      });
    },

    /** `DELETE base/:key`: 204 once core has removed the resource. */
    remove: (
      summary: string,
      remove: (organizationId: string, id: string, request: FastifyRequest) => Promise<unknown>,
    ) => {
      app.delete<ItemRoute, unknown, FastifySchema>(itemPath, {
        onRequest,
        schema: schema({ summary, params, response: { 204: Type.Null(), ...errors } }),
        handler: async (request, reply) => {
          await remove(request.params.organization_id, request.params[key], request);
          return noContent(reply);
        },
      });
    },
  };
};
