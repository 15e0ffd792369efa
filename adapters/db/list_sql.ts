import type { FilterValue, ListQuery, SortKey } from "../../core/listing/mod.ts";
import { containsPattern } from "./badge_rows.ts";
import { placeholders } from "./sql.ts";

/**
 * How a list's filter keys and sort keys read in SQL. A column given as text gets the meaning of
 * its value's kind (any of the values, a true/false, bounds included, a case-insensitive search);
 * a key whose meaning differs (several columns, containment) gives its own condition.
 */
export type FilterColumn = string | ((value: FilterValue, params: unknown[]) => string);

export interface ListTable<F extends string, S extends string> {
  filters: Record<F, FilterColumn>;
  sorts: Record<S, string>;
  /** The unique column that breaks ties, so pages never overlap. */
  id: string;
}

/** The condition of one key on one column, pushing its parameters. */
export const columnCondition = (column: string, value: FilterValue, params: unknown[]): string => {
  switch (value.kind) {
    case "values":
      params.push(...value.values);
      return value.values.length === 1 ? `${column} = ?` : `${column} in (${placeholders(value.values.length)})`;
    case "boolean":
      params.push(value.value);
      return `${column} = ?`;
    case "range": {
      const parts: string[] = [];
      if (value.min) {
        parts.push(`${column} >= ?`);
        params.push(value.min);
      }
      if (value.max) {
        parts.push(`${column} <= ?`);
        params.push(value.max);
      }
      return parts.join(" and ");
    }
    case "search":
      if (value.exact) {
        params.push(value.text);
        return `lower(${column}) = lower(?)`;
      }
      params.push(containsPattern(value.text));
      return `${column} ilike ?`;
  }
};

/** `and`-joined conditions of every filter given (after the caller's own `head` conditions). */
export const listWhere = <F extends string, S extends string>(
  table: ListTable<F, S>,
  query: Pick<ListQuery<F, S>, "filters">,
  head: string[],
  headParams: unknown[],
): { sql: string; params: unknown[] } => {
  const parts = [...head];
  const params = [...headParams];
  for (const [key, value] of Object.entries(query.filters) as [F, FilterValue | undefined][]) {
    if (!value) continue;
    const column = table.filters[key];
    parts.push(typeof column === "string" ? columnCondition(column, value, params) : column(value, params));
  }
  return { sql: parts.join(" and "), params };
};

/** `order by` text: the keys asked for, then the id in the direction of the first key. */
export const listOrder = <F extends string, S extends string>(table: ListTable<F, S>, sort: SortKey<S>[]): string => {
  const keys = sort.map((k) => `${table.sorts[k.key]} ${k.desc ? "desc" : "asc"}`);
  const idDesc = sort[0]?.desc ?? true;
  return [...keys, `${table.id} ${idDesc ? "desc" : "asc"}`].join(", ");
};
