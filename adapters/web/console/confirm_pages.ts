import type { FastifyReply, FastifyRequest } from "fastify";
import { html } from "../html.ts";
import { csrfField } from "../layout.ts";
import { field } from "../routes_public.ts";
import type { WebKit } from "../web_deps.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { type ConsoleSection, consoleLayout } from "./console_layout.ts";

/**
 * What cannot be undone is asked twice: the first POST of a destructive form (its button on the
 * page) answers this page, and only its own form, sent with `confirm=yes` and a fresh CSRF token,
 * acts. It works without JavaScript, and a reload of the question changes nothing.
 */
export const isConfirmed = (request: FastifyRequest): boolean => field(request, "confirm") === "yes";

export interface Question {
  /** The page's title and heading: the question itself ("Delete the template “Welcome”?"). */
  question: string;
  /** What happens, in sentences. */
  consequences: string[];
  /** Where the confirmed form posts (the same route), with the fields it carries again. */
  action: string;
  fields?: Record<string, string>;
  /** The confirming button ("Delete template"). */
  confirm: string;
  /** Where "Cancel" goes back to. */
  back: string;
}

/** The confirmation page of a destructive action (200: nothing was changed). */
export const askFirst = (
  kit: WebKit,
  request: FastifyRequest,
  reply: FastifyReply,
  member: ConsoleMember,
  section: ConsoleSection,
  q: Question,
): FastifyReply => {
  const frame = kit.frame(request, reply, q.question);
  return kit.page(
    reply,
    200,
    consoleLayout(
      frame,
      member,
      section,
      html`<section class="card danger-zone confirm" aria-labelledby="confirm-h">
        <h1 id="confirm-h">${q.question}</h1>
        ${q.consequences.map((line) => html`<p>${line}</p>`)}
        <form method="post" action=${q.action} class="actions">${csrfField(frame.csrf)}
          ${Object.entries(q.fields ?? {}).map(([k, v]) => html`<input type="hidden" name=${k} value=${v} />`)}
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="danger">${q.confirm}</button>
          <a class="button secondary" href=${q.back}>Cancel</a>
        </form>
      </section>`,
    ),
  );
};
