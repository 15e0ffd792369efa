import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { BADGE_LIST, BadgeRevokeBody } from "../../../core/badges/mod.ts";
import { isCoreError } from "../../../core/errors/mod.ts";
import {
  BULK_LIMIT,
  type BulkAction,
  type BulkScope,
  bulkResend,
  bulkRevoke,
  bulkTargets,
  type IssuingContext,
} from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import { html } from "../html.ts";
import { field } from "../routes_public.ts";
import type { WebKit } from "../web_deps.ts";
import { BADGE_FILTER_KEYS } from "./badge_pages.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import type { ConsoleDeps, ConsoleMember } from "./console_deps.ts";
import { consoleLayout, consolePath, problem } from "./console_layout.ts";
import { checked, fieldValues } from "./form_fields.ts";
import type { ConsoleGate } from "./routes_console.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How the list's filter reads in a sentence ("state pending; template …"), for the question page. */
const FILTER_WORDS: Record<(typeof BADGE_FILTER_KEYS)[number], string> = {
  state: "state",
  badge_template_id: "template",
  query: "recipient or template",
  issued_at_min: "issued from",
  issued_at_max: "issued until",
};

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;

/**
 * Bulk revoke and resend on the badge list: on the badges picked (`id`, or `ids` once asked) or on
 * every badge the list's filter matches (`scope=filter`, the filter in `filter_<key>`), at most
 * `BULK_LIMIT`. The first POST answers a question page naming how many; its form, with
 * `confirm=yes`, acts through core's bulk use cases and redirects to the list with what was done.
 */
export const bulkRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const b = deps.badges;
  const ctx = (member: ConsoleMember, request: FastifyRequest): IssuingContext => ({
    now: kit.deps.clock(),
    newId: b.ids.newId,
    newEventId: b.ids.newEventId,
    newSalt: b.ids.newSalt,
    by: member.by(request.ip),
  });

  /** The filter the form carried, as the list's pairs (empty ones left out). */
  const filterOf = (request: FastifyRequest): Record<string, string> => {
    const filter: Record<string, string> = {};
    for (const key of BADGE_FILTER_KEYS) {
      const value = field(request, `filter_${key}`).trim();
      if (value) filter[key] = value.slice(0, 200);
    }
    return filter;
  };

  /** The table's order and page size as the form carried them, to go back to the same view. */
  const viewOf = (request: FastifyRequest): Record<string, string> => {
    const view: Record<string, string> = {};
    for (const key of ["sort", "per"]) {
      const value = field(request, `view_${key}`).trim();
      if (/^-?[a-z_]{1,40}$|^\d{2,3}$/.test(value)) view[key] = value;
    }
    return view;
  };

  const listPath = (member: ConsoleMember, filter: Record<string, string>, view: Record<string, string>): string => {
    const q = new URLSearchParams({ ...filter, ...view }).toString();
    return `${consolePath(member.organizationId, "badges")}${q ? `?${q}` : ""}`;
  };

  /** Nothing was done: the reason, and a way back to the list (422, or 400 for a filter the list refuses). */
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    member: ConsoleMember,
    status: number,
    why: string,
    back: string,
  ) =>
    kit.page(
      reply,
      status,
      consoleLayout(
        kit.frame(request, reply, "Nothing was changed"),
        member,
        "badges",
        html`<h1>Nothing was changed</h1>`,
        problem(why),
        html`<p><a class="button secondary" href=${back}>Back to the badges</a></p>`,
      ),
    );

  const bulkRoute =
    (action: BulkAction) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const member = await gate(request, reply, action === "revoke" ? "badges.revoke" : "badges.issue");
      if (!member) return reply;
      const filter = filterOf(request);
      const view = viewOf(request);
      const back = listPath(member, filter, view);
      const onFilter = field(request, "scope") === "filter";
      let reason = "";
      if (action === "revoke") {
        reason = field(request, "reason").trim();
        try {
          checked<BadgeRevokeBody>(BadgeRevokeBody, { reason }, "reason");
        } catch (err) {
          if (!isCoreError(err)) throw err;
          return refused(request, reply, member, 422, "Give a reason for revoking: verifiers are shown it.", back);
        }
      }

      let ids: string[];
      let scope: BulkScope;
      let matched: number;
      if (onFilter) {
        try {
          const query = parseListQuery(BADGE_LIST, Object.entries(filter));
          const found = await bulkTargets(b.issuing, member.organizationId, query);
          ids = found.ids;
          matched = found.total;
        } catch (err) {
          if (!isCoreError(err) || err.code !== "bad_request") throw err;
          return refused(request, reply, member, 400, `${err.message}.`, back);
        }
        scope = { kind: "filter", filter };
      } else {
        const picked = [...fieldValues(request, "id"), ...field(request, "ids").split(",")]
          .map((id) => id.trim().toLowerCase())
          .filter((id) => UUID.test(id));
        ids = [...new Set(picked)].slice(0, BULK_LIMIT);
        matched = ids.length;
        scope = { kind: "selection", ids };
      }
      if (ids.length === 0) {
        return refused(
          request,
          reply,
          member,
          422,
          onFilter
            ? "No badge matches the filter."
            : "Select at least one badge, or choose every badge the filter matches.",
          back,
        );
      }

      if (!isConfirmed(request)) {
        // The template by its name: the filter holds its id (a valid one, or the list refused it above).
        const shown = async ([k, v]: [string, string]): Promise<string> => {
          const value =
            k === "badge_template_id"
              ? ((await b.issuing.store.getTemplate(member.organizationId, v))?.template.name ?? v)
              : v;
          return `${FILTER_WORDS[k as keyof typeof FILTER_WORDS]} “${value}”`;
        };
        const what = onFilter
          ? Object.keys(filter).length === 0
            ? "every badge of the organization"
            : `the badges matching ${(await Promise.all(Object.entries(filter).map(shown))).join("; ")}`
          : "the badges you selected";
        const count = plural(ids.length, "badge", "badges");
        const capped =
          matched > ids.length
            ? [
                `${plural(matched, "badge matches", "badges match")}; one bulk action touches at most ${BULK_LIMIT.toLocaleString("en-GB")}, so only the ${ids.length.toLocaleString("en-GB")} most recently issued are included. Run it again for the rest.`,
              ]
            : onFilter
              ? [`One bulk action touches at most ${BULK_LIMIT.toLocaleString("en-GB")} badges; these are all of them.`]
              : [];
        const fields: Record<string, string> = {
          scope: onFilter ? "filter" : "selection",
          ...Object.fromEntries(Object.entries(filter).map(([k, v]) => [`filter_${k}`, v])),
          ...Object.fromEntries(Object.entries(view).map(([k, v]) => [`view_${k}`, v])),
          ...(onFilter ? {} : { ids: ids.join(",") }),
          ...(action === "revoke" ? { reason } : {}),
        };
        return askFirst(kit, request, reply, member, "badges", {
          question: action === "revoke" ? `Revoke ${count}?` : `Resend the notification of ${count}?`,
          consequences: [
            `This acts on ${what}: ${count}${onFilter ? ", counted now" : ""}.`,
            ...capped,
            ...(action === "revoke"
              ? [
                  `Each pending or accepted badge is revoked with your reason: “${reason}”; the others are passed over. Verifiers see them as revoked.`,
                  "A revoked badge cannot be restored; you can issue a new one.",
                ]
              : [
                  "Each pending badge's recipient gets the notification again, with a fresh link; the others are passed over.",
                  "Each one counts against the organization's mail budget; once it is spent, the rest are not sent.",
                ]),
          ],
          action: `${consolePath(member.organizationId, "badges")}/bulk/${action}`,
          fields,
          confirm: action === "revoke" ? `Revoke ${count}` : `Resend ${count}`,
          back,
        });
      }

      const result =
        action === "revoke"
          ? await bulkRevoke(b.issuing, ctx(member, request), member.organizationId, scope, ids, { reason })
          : await bulkResend(b.issuing, ctx(member, request), member.organizationId, scope, ids);
      const q = new URLSearchParams({ ...filter, ...view });
      q.set("bulk", action);
      q.set("changed", String(result.done));
      if (result.skipped) q.set("skipped", String(result.skipped));
      if (result.budgetLeft) q.set("unsent", String(result.budgetLeft));
      return reply.redirect(`${consolePath(member.organizationId, "badges")}?${q}`, 303);
    };

  app.post("/console/:org/badges/bulk/revoke", bulkRoute("revoke"));
  app.post("/console/:org/badges/bulk/resend", bulkRoute("resend"));
};
