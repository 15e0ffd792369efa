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

/** The previous and next page links of a list longer than a page; `href` is a page's address. */
export const pager = (at: ListPosition, href: (page: number) => string) =>
  at.total > at.pageSize
    ? html`<nav class="pager row" aria-label="Pages">
        ${at.page > 1 ? html`<a class="button secondary" rel="prev" href=${href(at.page - 1)}>Previous page</a>` : null}
        ${at.page < lastPage(at) ? html`<a class="button secondary" rel="next" href=${href(at.page + 1)}>Next page</a>` : null}
      </nav>`
    : null;
