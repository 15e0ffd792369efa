import type { FastifySchemaCompiler } from "fastify";
import type { TSchema } from "typebox";
import { type ListSpec, type ParsedList, type ParseOptions, parseListQuery } from "../../core/listing/mod.ts";
import { strictValidatorCompiler } from "./validator.ts";

/**
 * The name/value pairs of a request's query string, read from the URL as received: the list
 * grammar needs every pair, repeated or bracketed (`filter[state]=...`), in order, which the
 * object Fastify parses the query into does not keep.
 */
export const queryEntries = (url: string): [string, string][] => {
  const at = url.indexOf("?");
  return at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1))];
};

/**
 * A list request's filters, sort and page, read by core's grammar (400 with field errors); the
 * parameters `ignoreUnknownParameters` set aside are left out.
 */
export const readListQuery = <F extends string, S extends string>(
  spec: ListSpec<F, S>,
  request: { url: string; ignoredParameters: ReadonlySet<string> | null },
  options?: ParseOptions,
): ParsedList<F, S> => {
  const ignored = request.ignoredParameters;
  const entries = queryEntries(request.url);
  return parseListQuery(spec, ignored ? entries.filter(([name]) => !ignored.has(name)) : entries, options);
};

/**
 * For list routes: the query string's schema documents the grammar in the OpenAPI document but is
 * not checked by Fastify (`readListQuery` reads it); other parts are checked as everywhere.
 */
export const listValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) =>
  route.httpPart === "querystring" ? (value: unknown) => ({ value }) : strictValidatorCompiler(route);

/** The OpenAPI description shared by the list routes. */
export const LIST_DESCRIPTION =
  'Filters may be sent as `filter=key::value|key::value` (comma lists for enumerations and ids: `filter=state::pending,accepted`), as `filter[key]=value`, or as plain `key=value`, in any mix; dates as `<key>_min` / `<key>_max`. A text-search value in double quotes matches exactly. Sort with `sort=key|-key` (`-` for descending). `previous_page_url` and `next_page_url` keep the filters and sort as sent. An unknown key, a key given twice, or a value its kind refuses answers 400 `{data: {code: "bad_request", message, errors: [{field, message}]}}`, one error per problem: `field` is the parameter as sent (`filter`, `filter[key]`, `key`, `sort`, `page`) and the message of an unknown key names every known one.';
