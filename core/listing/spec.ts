/**
 * What a list accepts: its filter keys, each with the kind of value it takes, and its sort keys.
 * A list declares these once; the grammar (`parseListQuery`), the OpenAPI description
 * (`listQuerySchema`) and the 400 naming the known keys all come from the declaration.
 */
export type FilterKind =
  /** Case-insensitive substring; a value in double quotes matches the whole field exactly. */
  | { kind: "search" }
  /** An exact value (case-insensitive); `list`: a comma list, any of which matches. */
  | { kind: "text"; list?: boolean }
  /** An e-mail address, normalized (trimmed, lowercased); `list`: a comma list. */
  | { kind: "email"; list?: boolean }
  /** One of `values`; always a comma list, any of which matches. */
  | { kind: "enum"; values: readonly string[] }
  /** A UUID (lowercased); a comma list, any of which matches. */
  | { kind: "id" }
  | { kind: "boolean" }
  /** Written `<key>_min` and `<key>_max`: an ISO 8601 date or date-time, bounds included. */
  | { kind: "date" };

export interface ListSpec<F extends string = string, S extends string = string> {
  filters: Readonly<Record<F, FilterKind>>;
  /** Sort keys; `-key` sorts descending. */
  sorts: readonly S[];
  /** The order when no `sort` is given. */
  defaultSort: readonly SortKey<S>[];
  /**
   * Other names for one bound of a date filter, as clients of other services send them: a `start`
   * bound is included (`<key>_min`), an `end` bound is excluded (before that instant; a bare date:
   * before that day).
   */
  ranges?: Readonly<Record<string, { key: NoInfer<F>; bound: "start" | "end" }>>;
  /** Other names for a filter key, as clients of other services spell it. */
  aliases?: Readonly<Record<string, NoInfer<F>>>;
}

export interface SortKey<S extends string = string> {
  key: S;
  desc: boolean;
}

/** What a filter key asked for, by kind. */
export type FilterValue =
  | { kind: "search"; text: string; exact: boolean }
  | { kind: "values"; values: string[] }
  | { kind: "boolean"; value: boolean }
  | { kind: "range"; min: Date | null; max: Date | null };

export interface ListQuery<F extends string = string, S extends string = string> {
  filters: Partial<Record<F, FilterValue>>;
  sort: SortKey<S>[];
  page: number;
}

/** Declares a list, keeping its key names as types. */
export const defineList = <F extends string, S extends string>(spec: ListSpec<F, S>): ListSpec<F, S> => spec;

/** Every key a client may name: plain keys, and `<key>_min` / `<key>_max` for dates. */
export const filterKeyNames = (spec: ListSpec): string[] => [
  ...Object.entries(spec.filters).flatMap(([key, f]) =>
    (f as FilterKind).kind === "date" ? [`${key}_min`, `${key}_max`] : [key],
  ),
  ...Object.keys(spec.ranges ?? {}),
  ...Object.keys(spec.aliases ?? {}),
];

/**
 * The filters as one string that is the same for every spelling of the same filter: keys in order,
 * a list's values sorted (any of them matches, so their order means nothing). Counts are cached
 * under it.
 */
export const normalizedFilterKey = (filters: Partial<Record<string, FilterValue>>): string =>
  JSON.stringify(
    Object.entries(filters)
      .filter((entry): entry is [string, FilterValue] => entry[1] !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => [key, value.kind === "values" ? { ...value, values: [...value.values].sort() } : value]),
  );
