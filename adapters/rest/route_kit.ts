import type { FastifyReply } from "fastify";
import { type TString, Type } from "typebox";
import type { OrganizationStore } from "../../core/credentials/mod.ts";
import { notFound } from "../../core/errors/mod.ts";
import type { ListSpec, ParsedList } from "../../core/listing/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";
import { type PageRequest, pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { many, one, pageUrlFor } from "./envelope.ts";
import { ErrorBody } from "./errors.ts";
import { freshReads, sendFreshBody } from "./fresh_reads.ts";
import { readListQuery } from "./list_query.ts";

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
 * The handler of an organization's list read with the list grammar (filters, sort, page): `read`
 * gives the page, `toJson` each item's JSON. Its body depends on the organization and the URL
 * (filters, page, links) only, so identical requests share one strictly fresh read.
 */
export const freshListHandler = <F extends string, S extends string, T, J>(
  origin: string,
  spec: ListSpec<F, S>,
  read: (organizationId: string, query: ParsedList<F, S>, req: PageRequest) => Promise<{ items: T[]; total: number }>,
  toJson: (item: T) => J,
) => {
  const lists = freshReads<Buffer>();
  return async (request: { params: { organization_id: string }; url: string }, reply: FastifyReply) => {
    const { organization_id } = request.params;
    const query = readListQuery(spec, request);
    const req = pageRequest(query.page);
    return sendFreshBody(lists, reply, `${organization_id} ${request.url}`, async () =>
      pageBody(origin, request.url, req, await read(organization_id, query, req), toJson),
    );
  };
};

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
