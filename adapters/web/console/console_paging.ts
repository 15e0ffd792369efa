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
