import type { FastifyRequest } from "fastify";
import { type PageRequest, pageRequest } from "../../../core/shared/mod.ts";
import { html } from "../html.ts";
import { sentValue } from "../sent.ts";

/**
 * The page of a console list that `?page=` asks for; anything but a page number from 1 to 100,000
 * reads as the first page (a console link never sends one, so it is not worth an error page).
 */
export const requestedPage = (request: FastifyRequest, per?: number): PageRequest => {
  const pageNo = Number(sentValue(request.query, "page") ?? "1");
  return pageRequest(Number.isInteger(pageNo) && pageNo >= 1 && pageNo <= 100_000 ? pageNo : 1, per);
};

/** A link to the list's next page at `path`, when the list goes on past this page. */
export const moreLink = (path: string, req: PageRequest, page: { items: unknown[]; total: number }, label: string) =>
  page.total > req.offset + page.items.length
    ? html`<p><a href=${`${path}?page=${req.page + 1}`}>${label}</a></p>`
    : null;

/** Where a filtered console list stands: how many match, the page shown and the page size. */
interface ListPosition {
  total: number;
  page: number;
  pageSize: number;
}

const lastPage = (at: ListPosition): number => Math.max(1, Math.ceil(at.total / at.pageSize));

/** How many match and which page this is ("3 badges, page 1 of 1"), announced as a status. */
export const listStatus = (at: ListPosition, one: string, many: string) =>
  html`<p class="small" role="status">${at.total.toLocaleString("en-GB")} ${at.total === 1 ? one : many}${at.total > 0 ? `, page ${at.page} of ${lastPage(at)}` : ""}</p>`;

/** The query string of a filtered list's page: the filters that have a value, and a page after the first. */
const filteredPageQuery = <K extends string>(filters: Record<K, string>, page: number): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries<string>(filters)) if (v) q.set(k, v);
  if (page > 1) q.set("page", String(page));
  const s = q.toString();
  return s ? `?${s}` : "";
};

/** The previous and next page links of a filtered list at `path` that is longer than a page. */
export const pager = <K extends string>(at: ListPosition, path: string, filters: Record<K, string>) => {
  const href = (page: number) => `${path}${filteredPageQuery(filters, page)}`;
  return at.total > at.pageSize
    ? html`<nav class="pager row" aria-label="Pages">
        ${at.page > 1 ? html`<a class="button secondary" rel="prev" href=${href(at.page - 1)}>Previous page</a>` : null}
        ${at.page < lastPage(at) ? html`<a class="button secondary" rel="next" href=${href(at.page + 1)}>Next page</a>` : null}
      </nav>`
    : null;
};
