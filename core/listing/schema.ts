import { type TObject, type TSchema, Type } from "typebox";
import { MAX_PAGE, MAX_PER, PAGE_SIZE } from "../shared/mod.ts";
import { type FilterKind, filterKeyNames, type ListSpec } from "./spec.ts";

const describe = (kind: FilterKind): string => {
  switch (kind.kind) {
    case "search":
      return 'Case-insensitive text search; a value in double quotes ("...") matches exactly.';
    case "text":
      return kind.list ? "A comma list of exact values (any matches)." : "An exact value, any case.";
    case "email":
      return kind.list ? "A comma list of e-mail addresses (any matches)." : "An e-mail address, any case.";
    case "enum":
      return `One of ${kind.values.join(", ")}; a comma list matches any of them.`;
    case "id":
      return "A UUID; a comma list matches any of them.";
    case "boolean":
      return "true or false.";
    case "date":
      return "An ISO 8601 date or date-time (UTC when no offset); bounds are included, and a bare date as _max takes its whole day.";
  }
};

/** `per` and its alias `page_size`: how many a page holds. */
export const perQuery = {
  per: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PER,
      description: `Results a page holds, 1 to ${MAX_PER}; ${PAGE_SIZE} when absent.`,
    }),
  ),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER, description: "The same as per." })),
};

/**
 * The query parameters of a list for the OpenAPI document: `filter` and `sort` with their grammar,
 * then every filter key in both the plain (`state=`) and the bracket form (`filter[state]=`).
 * Requests are read by `parseListQuery`, not checked against this schema.
 */
export const listQuerySchema = (
  spec: ListSpec,
  options: { paged?: boolean; sortable?: boolean; extra?: Record<string, TSchema> } = {},
): TObject => {
  const keys = filterKeyNames(spec);
  const properties: Record<string, TSchema> = {
    filter: Type.Optional(
      Type.String({
        description: `Filters as key::value pairs joined by |, such as state::pending,accepted|issued_at_min::2024-01-01. Known keys: ${keys.join(", ")}. Each key may also be sent as filter[key]=value or key=value. An unknown key answers 400 naming the known ones.`,
      }),
    ),
  };
  if (spec.sorts.length > 0 && options.sortable !== false)
    properties.sort = Type.Optional(
      Type.String({
        description: `Sort keys joined by |, each optionally prefixed by - for descending, such as ${spec.sorts[0]}|-${spec.sorts[1] ?? spec.sorts[0]}. Known keys: ${spec.sorts.join(", ")}.`,
      }),
    );
  if (options.paged !== false) properties.page = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE }));
  Object.assign(properties, perQuery);
  for (const name of keys) {
    const range = spec.ranges?.[name];
    const alias = spec.aliases?.[name];
    const base = range?.key ?? alias ?? (name in spec.filters ? name : name.slice(0, -4));
    const description = alias
      ? `The same as ${alias}.`
      : range
        ? range.bound === "start"
          ? `The same as ${base}_min: ${base} at or after this date or date-time (a space may stand for the T: 2000-01-01 00:00:00).`
          : `${base} before this date or date-time, which is excluded (a bare date: before that day begins; a space may stand for the T).`
        : describe(spec.filters[base] as FilterKind);
    properties[name] = Type.Optional(Type.String({ description }));
    properties[`filter[${name}]`] = Type.Optional(Type.String({ description: `The same as ${name}.` }));
  }
  return Type.Object({ ...properties, ...options.extra });
};
