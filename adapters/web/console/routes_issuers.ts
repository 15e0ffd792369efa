import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TEMPLATE_LIST } from "../../../core/badges/mod.ts";
import { validationFailed } from "../../../core/errors/mod.ts";
import {
  type AuthorizationAction,
  type AuthorizationSide,
  changeIssuerAuthorization,
  getIssuerAuthorization,
  grantIssuer,
  type IssuerAuthorizationStore,
  listIssuerAuthorizations,
} from "../../../core/issuer_authorizations/mod.ts";
import { listTemplates } from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import type { OnBehalfTemplates } from "./badge_pages.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { fieldValues, tryForm } from "./form_fields.ts";
import { type GrantForm, issuersPage } from "./issuer_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = {
  granted: "Authorization sent: the organization issues your templates once it accepts.",
  accepted: "Accepted: their templates are on your issue form.",
  ended: "Ended: no more badges are issued under it; those issued stay valid.",
};

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** The id typed, or the last id in an address pasted (an organization's page). */
const idIn = (text: string): string | null => text.match(UUIDS)?.at(-1)?.toLowerCase() ?? null;

/** Organizations and templates a page shows at once: few, the API pages further. */
const SHOWN = 100;

/**
 * The active templates of the organizations `member`'s issues for (accepted authorizations), by
 * grantor: what its issue form and imports offer after its own. None without the store.
 */
export const grantorTemplates = async (
  store: IssuerAuthorizationStore | undefined,
  member: ConsoleMember,
): Promise<OnBehalfTemplates[]> => {
  if (!store) return [];
  const received = await listIssuerAuthorizations(
    store,
    member.actor,
    member.organizationId,
    "issuer",
    pageRequest(1, SHOWN),
    {
      liveOnly: true,
    },
  );
  return received.items
    .filter((a) => a.state === "accepted")
    .map((a) => ({
      grantor: { id: a.grantor_id, name: a.grantor_name },
      templates: a.badge_templates.filter((t) => t.state === "active").map((t) => ({ id: t.id, name: t.name })),
    }))
    .filter((g) => g.templates.length > 0);
};

/**
 * Authorized issuers in the console: the same use cases as `/organizations/<org>/issuers` and
 * `.../grantors`, gated by the role table (`templates.read` to see, `templates.write` to change).
 */
export const issuerRoutes =
  (kit: WebKit, deps: Pick<ConsoleDeps, "newId" | "badges">, store: IssuerAuthorizationStore, gate: ConsoleGate) =>
  async (app: FastifyInstance) => {
    const ctx = () => consoleContext(kit, deps);
    const emptyForm: GrantForm = { issuer: "", all: true, templateIds: [] };

    const show: MemberPage<[extra?: { error?: string; form?: GrantForm }]> = async (
      request,
      reply,
      member,
      status,
      extra = {},
    ) => {
      const req = pageRequest(1, SHOWN);
      const [given, received, templates] = await Promise.all([
        listIssuerAuthorizations(store, member.actor, member.organizationId, "grantor", req, { liveOnly: true }),
        listIssuerAuthorizations(store, member.actor, member.organizationId, "issuer", req, { liveOnly: true }),
        member.allowed("templates.write")
          ? listTemplates(
              deps.badges.issuing,
              member.organizationId,
              parseListQuery(TEMPLATE_LIST, [["sort", "name"]]),
              pageRequest(1, SHOWN),
            )
          : Promise.resolve({ items: [], total: 0 }),
      ]);
      return kit.page(
        reply,
        status,
        issuersPage(kit.frame(request, reply, "Authorized issuers"), member, {
          given: given.items,
          received: received.items,
          templates: templates.items,
          notice: doneNotice(NOTICES, request),
          error: extra.error ?? null,
          form: extra.form ?? emptyForm,
        }),
      );
    };
    const done = (reply: FastifyReply, member: ConsoleMember, what: string) =>
      reply.redirect(`${consolePath(member.organizationId, "issuers")}?done=${what}`, 303);

    app.get("/console/:org/issuers", memberPageRoute(gate, "templates.read", show));

    app.post("/console/:org/issuers", async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      const form: GrantForm = {
        issuer: field(request, "issuer_organization_id").trim().slice(0, 500),
        all: field(request, "all_templates") === "on",
        templateIds: fieldValues(request, "badge_template_ids")
          .map((id) => id.trim().toLowerCase())
          .slice(0, 200),
      };
      return tryForm(
        async () => {
          const issuerId = idIn(form.issuer);
          if (!issuerId)
            throw validationFailed("Check the organization", [
              { field: "issuer_organization_id", message: "must be an organization's id, or an address ending in one" },
            ]);
          const ids = [...new Set(form.templateIds.filter((id) => idIn(id) === id))];
          if (!form.all && ids.length === 0)
            throw validationFailed("Choose the templates it may issue", [
              { field: "badge_template_ids", message: "choose every template, or one of them at least" },
            ]);
          await grantIssuer(store, ctx(), member.actor, request.ip, member.organizationId, {
            issuer_organization_id: issuerId,
            badge_template_ids: form.all ? null : ids,
          });
          return done(reply, member, "granted");
        },
        (error) => show(request, reply, member, 422, { error, form }),
      );
    });

    const act = (
      request: FastifyRequest,
      reply: FastifyReply,
      member: ConsoleMember,
      side: AuthorizationSide,
      action: AuthorizationAction,
    ) =>
      tryForm(
        async () => {
          await changeIssuerAuthorization(
            store,
            ctx(),
            member.actor,
            request.ip,
            member.organizationId,
            side,
            uuidParam(request),
            action,
          );
          return done(reply, member, action === "accept" ? "accepted" : "ended");
        },
        (error) => show(request, reply, member, 422, { error }),
      );

    app.post("/console/:org/grantors/:id/accept", async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      return act(request, reply, member, "issuer", "accept");
    });

    // Ending stops issuing at once: asked first, naming the other organization.
    for (const side of ["grantor", "issuer"] as const) {
      const path = side === "grantor" ? "issuers" : "grantors";
      app.post(`/console/:org/${path}/:id/end`, async (request, reply) => {
        const member = await gate(request, reply, "templates.write");
        if (!member) return reply;
        if (isConfirmed(request)) return act(request, reply, member, side, "end");
        return tryForm(
          async () => {
            const a = await getIssuerAuthorization(
              store,
              member.actor,
              member.organizationId,
              side,
              uuidParam(request),
            );
            const back = consolePath(member.organizationId, "issuers");
            return askFirst(kit, request, reply, member, "issuers", {
              question:
                side === "grantor"
                  ? `End ${a.issuer_name}'s authorization to issue your templates?`
                  : `Stop issuing for ${a.grantor_name}?`,
              consequences: [
                side === "grantor"
                  ? `${a.issuer_name} can issue no more of your badges from now on.`
                  : `You can issue no more of ${a.grantor_name}'s badges from now on.`,
                "Badges issued under it stay valid.",
              ],
              action: `/console/${member.organizationId}/${path}/${a.id}/end`,
              confirm: side === "grantor" ? "End authorization" : "Stop issuing",
              back,
            });
          },
          (error) => show(request, reply, member, 422, { error }),
        );
      });
    }
  };
