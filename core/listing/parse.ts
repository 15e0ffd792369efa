import { badRequest, type FieldError } from "../errors/mod.ts";
import { MAX_PAGE, MAX_PER, PAGE_SIZE } from "../shared/mod.ts";
import {
  type FilterKind,
  type FilterValue,
  filterKeyNames,
  type ListQuery,
  type ListSpec,
  type SortKey,
} from "./spec.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const PAGE = /^[1-9][0-9]{0,6}$/;
const PER = /^[1-9][0-9]{0,2}$/;
const VALUE_MAX = 1000;
const DAY_MS = 86_400_000;

/** Splits on `sep` outside double quotes, so a quoted search value may hold the separator. */
const splitOutsideQuotes = (text: string, sep: string): string[] => {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text.startsWith(sep, i)) {
      parts.push(text.slice(start, i));
      start = i + sep.length;
    }
  }
  parts.push(text.slice(start));
  return parts;
};

const commaList = (value: string): string[] =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/**
 * An ISO 8601 date or date-time; no offset reads as UTC. A bare date as an upper bound takes its
 * whole day; as an `end` it is the start of that day (the bound itself is excluded by the caller).
 * A space may stand for the `T` (`2000-01-01 00:00:00`, as SQL and Ruby print times).
 */
const parseDate = (value: string, bound: "min" | "max" | "end"): Date | null => {
  // An unencoded `+` of an offset arrives as a space (form encoding): read it back as `+`.
  const text = value
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:)/, "$1T$2")
    .replace(/(T[\d:.]+) (\d{2}:?\d{2})$/i, "$1+$2");
  if (DATE.test(text)) {
    const day = new Date(`${text}T00:00:00Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) return null;
    return bound === "max" ? new Date(day.getTime() + DAY_MS - 1) : day;
  }
  if (!DATE_TIME.test(text)) return null;
  const at = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
  return Number.isNaN(at.getTime()) ? null : at;
};

type Converted = { value: FilterValue } | { error: string };

const convert = (kind: FilterKind, raw: string, bound: "min" | "max" | "end" | null): Converted => {
  const value = raw.trim();
  if (value === "") return { error: "must not be empty" };
  switch (kind.kind) {
    case "search": {
      const exact = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
      const text = exact ? value.slice(1, -1) : value;
      return text === "" ? { error: "must not be empty" } : { value: { kind: "search", text, exact } };
    }
    case "text":
    case "email": {
      const values = kind.list ? commaList(value) : [value];
      if (values.length === 0) return { error: "must not be empty" };
      return { value: { kind: "values", values: kind.kind === "email" ? values.map((v) => v.toLowerCase()) : values } };
    }
    case "enum": {
      const values = commaList(value);
      const wrong = values.find((v) => !kind.values.includes(v));
      if (wrong !== undefined || values.length === 0)
        return { error: `must be one of ${kind.values.join(", ")} (a comma list for several)` };
      return { value: { kind: "values", values: [...new Set(values)] } };
    }
    case "id": {
      const values = commaList(value);
      if (values.length === 0 || !values.every((v) => UUID.test(v)))
        return { error: "must be a UUID (a comma list for several)" };
      return { value: { kind: "values", values: values.map((v) => v.toLowerCase()) } };
    }
    case "boolean":
      return value === "true" || value === "false"
        ? { value: { kind: "boolean", value: value === "true" } }
        : { error: "must be true or false" };
    case "date": {
      const at = parseDate(value, bound ?? "min");
      if (!at) return { error: "must be an ISO 8601 date or date-time, such as 2024-05-01 or 2024-05-01T12:00:00Z" };
      // Bounds are kept inclusive: an excluded end is the millisecond before it.
      if (bound === "end") return { value: { kind: "range", min: null, max: new Date(at.getTime() - 1) } };
      return { value: { kind: "range", min: bound === "max" ? null : at, max: bound === "max" ? at : null } };
    }
  }
};

export interface ParseOptions {
  /** Parameters the route reads itself (a feed's `cursor`); they come back in `extra`. */
  extra?: readonly string[];
  /** False for a list with a fixed order (a feed): any `sort` is refused. */
  sortable?: boolean;
  /** False for a list paged otherwise (a feed): `page` is refused. */
  paged?: boolean;
}

export type ParsedList<F extends string, S extends string> = ListQuery<F, S> & {
  /** The page size: `per` (or its alias `page_size`, when `per` is absent), 1 to `MAX_PER`; `PAGE_SIZE` when neither. */
  per: number;
  extra: Record<string, string>;
};

/**
 * Reads a list's query parameters, in the order received: `filter=k::v|k2::v2`, `filter[k]=v` and
 * plain `k=v` (any mix), `sort=a|-b`, `page`, `per` (or `page_size`). A key named twice with
 * different values, a key the list does not know, or a value its kind refuses answers `bad_request`
 * with one field error each; an unknown key's error names every known one. The same key and value
 * twice counts once (some clients append their parameters to a URL that already holds them).
 */
export const parseListQuery = <F extends string, S extends string>(
  spec: ListSpec<F, S>,
  entries: Iterable<readonly [string, string]>,
  options: ParseOptions = {},
): ParsedList<F, S> => {
  const names = filterKeyNames(spec);
  const known = names.join(", ");
  const errors: FieldError[] = [];
  /** Each name read, with the value it had: the same name and value again is a client's repetition, not a conflict. */
  const seen = new Map<string, string>();
  const filters: Partial<Record<F, FilterValue>> = {};
  const extra: Record<string, string> = {};
  let sort: SortKey<S>[] | null = null;
  let page = 1;
  let per = PAGE_SIZE;

  /** True the first time `name` is read; a repetition with the same value is skipped, another value refused. */
  const once = (name: string, field: string, raw: string): boolean => {
    const before = seen.get(name);
    if (before === undefined) {
      seen.set(name, raw);
      return true;
    }
    if (before !== raw) errors.push({ field, message: `${name} is given more than once, with different values` });
    return false;
  };

  const put = (sent: string, raw: string, field: string) => {
    if (!names.includes(sent)) {
      errors.push({ field, message: `${sent || "(empty)"} is not a known filter key; known keys: ${known}` });
      return;
    }
    // An alias is its key: naming both is naming the key twice.
    const name = spec.aliases?.[sent] ?? sent;
    const range = spec.ranges?.[name];
    const key = (range?.key ?? (name in spec.filters ? name : name.slice(0, -4))) as F;
    const kind = spec.filters[key];
    const bound = range
      ? range.bound === "start"
        ? "min"
        : "end"
      : name.endsWith("_min")
        ? "min"
        : name.endsWith("_max")
          ? "max"
          : null;
    // An alias names the same bound as `<key>_min` or `<key>_max`: one of them only.
    if (!once(range ? `${key}_${bound === "min" ? "min" : "max"}` : name, field, raw)) return;
    if (raw.length > VALUE_MAX) {
      errors.push({ field, message: `${name} is longer than ${VALUE_MAX} characters` });
      return;
    }
    const converted = convert(kind, raw, kind.kind === "date" ? bound : null);
    if ("error" in converted) {
      errors.push({ field, message: `${name} ${converted.error}` });
      return;
    }
    const before = filters[key];
    const value = converted.value;
    filters[key] =
      before?.kind === "range" && value.kind === "range"
        ? { kind: "range", min: before.min ?? value.min, max: before.max ?? value.max }
        : value;
  };

  const readSort = (raw: string): SortKey<S>[] | null => {
    const keys: SortKey<S>[] = [];
    for (const part of raw.split("|").map((p) => p.trim())) {
      const desc = part.startsWith("-");
      const key = (desc ? part.slice(1) : part) as S;
      if (!spec.sorts.includes(key)) {
        errors.push({
          field: "sort",
          message: `${part || "(empty)"} is not a known sort key; known keys: ${spec.sorts.join(", ") || "(none)"}, each optionally prefixed by - for descending`,
        });
        return null;
      }
      if (keys.some((k) => k.key === key)) {
        errors.push({ field: "sort", message: `${key} is given more than once` });
        return null;
      }
      keys.push({ key, desc });
    }
    return keys;
  };

  for (const [name, raw] of entries) {
    const bracket = /^filter\[(.*)\]$/.exec(name);
    if (name === "per" || name === "page_size") {
      if (!once(name, name, raw)) continue;
      if (!PER.test(raw) || Number(raw) > MAX_PER)
        errors.push({ field: name, message: `${name} must be an integer from 1 to ${MAX_PER}` });
      else if (name === "per" || seen.get("per") === undefined) per = Number(raw);
    } else if (name === "page" && options.paged !== false) {
      if (!once("page", "page", raw)) continue;
      if (PAGE.test(raw) && Number(raw) <= MAX_PAGE) page = Number(raw);
      else errors.push({ field: "page", message: `page must be an integer from 1 to ${MAX_PAGE}` });
    } else if (name === "sort" && options.sortable !== false) {
      if (once("sort", "sort", raw)) sort = readSort(raw);
    } else if (name === "filter") {
      for (const part of splitOutsideQuotes(raw, "|")) {
        const at = part.indexOf("::");
        if (at < 0) errors.push({ field: "filter", message: `${part || "(empty)"} is not key::value` });
        else put(part.slice(0, at).trim(), part.slice(at + 2), "filter");
      }
    } else if (bracket) {
      put((bracket[1] ?? "").trim(), raw, name);
    } else if (options.extra?.includes(name)) {
      if (once(name, name, raw)) extra[name] = raw;
    } else {
      put(name, raw, name);
    }
  }
  if (errors.length > 0) throw badRequest("The list's filter, sort or page parameters are invalid", errors);
  return { filters, sort: sort ?? [...spec.defaultSort], page, per, extra };
};
