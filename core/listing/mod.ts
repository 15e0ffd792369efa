export type { ParsedList, ParseOptions } from "./parse.ts";
export { parseListQuery } from "./parse.ts";
export { listQuerySchema, perQuery } from "./schema.ts";
export type { FilterKind, FilterValue, ListQuery, ListSpec, SortKey } from "./spec.ts";
export { defineList, filterKeyNames, normalizedFilterKey } from "./spec.ts";
