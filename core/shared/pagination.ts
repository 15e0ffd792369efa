import { type Static, Type } from "typebox";

/** A list is 50 a page unless the request asks otherwise with `per` (docs/interface.md, Conventions). */
export const PAGE_SIZE = 50;

/** The most a request may ask for with `per` (or `page_size`). */
export const MAX_PER = 100;

/** The page metadata of a list (docs/interface.md, Conventions). */
export const PageMetadata = Type.Object({
  count: Type.Integer(),
  current_page: Type.Integer(),
  total_count: Type.Integer(),
  total_pages: Type.Integer(),
  per: Type.Integer(),
  previous_page_url: Type.Union([Type.String(), Type.Null()]),
  next_page_url: Type.Union([Type.String(), Type.Null()]),
});
export type PageMetadata = Static<typeof PageMetadata>;

/** Query `page`: from 1; anything else is refused by the schema, not clamped silently. */
export const MAX_PAGE = 1_000_000;

export interface PageRequest {
  page: number;
  per: number;
  offset: number;
}

export const pageRequest = (page: number | undefined, per = PAGE_SIZE): PageRequest => {
  const p = page ?? 1;
  return { page: p, per, offset: (p - 1) * per };
};

/**
 * Builds the page metadata; `urlFor` turns a page number into the absolute address of that page
 * (the adapter knows the base URL and the other query parameters).
 */
export const pageMetadata = (
  req: PageRequest,
  count: number,
  totalCount: number,
  urlFor: (page: number) => string,
): PageMetadata => {
  const totalPages = Math.ceil(totalCount / req.per);
  return {
    count,
    current_page: req.page,
    total_count: totalCount,
    total_pages: totalPages,
    per: req.per,
    previous_page_url: req.page > 1 ? urlFor(Math.min(req.page - 1, Math.max(totalPages, 1))) : null,
    next_page_url: req.page < totalPages ? urlFor(req.page + 1) : null,
  };
};
