import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  changeEndorsement,
  createEndorsement,
  type EndorsementAction,
  type EndorsementDeps,
  type EndorsementTarget,
  getEndorsement,
  listEndorsements,
} from "../../../core/endorsements/mod.ts";
import { validationFailed } from "../../../core/errors/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { type EndorsementForm, endorsementsPage } from "./endorsement_pages.ts";
import { tryForm } from "./form_fields.ts";
import type { ConsoleGate } from "./routes_console.ts";

export interface ConsoleEndorsementDeps extends EndorsementDeps {
  /** After an endorsement was published or stopped being: the records embedding it are dropped. */
  onChanged(kind: EndorsementTarget, targetId: string): Promise<void>;
}

const NOTICES: Record<string, string> = {
  sent: "Endorsement sent: it is published once they accept it.",
  accept: "Endorsement accepted: it is now published.",
  reject: "Endorsement rejected: it is no longer published.",
  withdraw: "Endorsement withdrawn: it is no longer published.",
};

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The id typed, or the last id in an address pasted (an organization's page, a badge class). */
const idIn = (text: string): string | null => text.match(UUIDS)?.at(-1)?.toLowerCase() ?? null;

/** Endorsements: the same use cases as `/organizations/<org>/endorsements`, under `profile.update`. */
export const endorsementRoutes =
  (kit: WebKit, deps: { newId(): string; endorsements: ConsoleEndorsementDeps }, gate: ConsoleGate) =>
  async (app: FastifyInstance) => {
    const base = "/console/:org/endorsements";
    const { store, onChanged } = deps.endorsements;
    const ctx = () => consoleContext(kit, deps);
    const emptyForm: EndorsementForm = { target_kind: "badge_template", target_id: "", comment: "" };

    const show: MemberPage<[extra?: { error?: string; form?: EndorsementForm }]> = async (
      request,
      reply,
      member,
      status,
      extra = {},
    ) => {
      // Endorsements between organizations are few; the API pages further.
      const req = pageRequest(1, 100);
      const [given, received] = await Promise.all([
        listEndorsements(store, member.actor, member.organizationId, "given", req),
        listEndorsements(store, member.actor, member.organizationId, "received", req),
      ]);
      return kit.page(
        reply,
        status,
        endorsementsPage(kit.frame(request, reply, "Endorsements"), member, {
          given: given.items,
          received: received.items,
          notice: doneNotice(NOTICES, request),
          error: extra.error ?? null,
          form: extra.form ?? emptyForm,
        }),
      );
    };
    const done = (reply: FastifyReply, member: ConsoleMember, what: string) =>
      reply.redirect(`${consolePath(member.organizationId, "endorsements")}?done=${what}`, 303);

    app.get(base, memberPageRoute(gate, "profile.read", show));

    app.post(base, async (request, reply) => {
      const member = await gate(request, reply, "profile.update");
      if (!member) return reply;
      const form: EndorsementForm = {
        target_kind: field(request, "target_kind"),
        target_id: field(request, "target_id").trim().slice(0, 500),
        comment: field(request, "comment").slice(0, 4000),
      };
      return tryForm(
        async () => {
          const kind = form.target_kind === "organization" ? "organization" : "badge_template";
          const targetId = idIn(form.target_id);
          if (!targetId)
            throw validationFailed("Check the id", [
              { field: "target_id", message: "must be a template's or organization's id, or an address ending in one" },
            ]);
          if (form.comment.trim().length > 2000)
            throw validationFailed("Shorten the comment", [{ field: "comment", message: "is over 2000 characters" }]);
          await createEndorsement(deps.endorsements, ctx(), member.actor, request.ip, member.organizationId, {
            target_kind: kind,
            target_id: targetId,
            comment: form.comment,
          });
          return done(reply, member, "sent");
        },
        (error) => show(request, reply, member, 422, { error, form }),
      );
    });

    const act = async (
      request: FastifyRequest,
      reply: FastifyReply,
      member: ConsoleMember,
      action: EndorsementAction,
    ) =>
      tryForm(
        async () => {
          const changed = await changeEndorsement(
            deps.endorsements,
            ctx(),
            member.actor,
            request.ip,
            member.organizationId,
            uuidParam(request),
            action,
          );
          await onChanged(changed.target_kind, changed.target_id);
          return done(reply, member, action);
        },
        (error) => show(request, reply, member, 422, { error }),
      );

    app.post(`${base}/:id/accept`, async (request, reply) => {
      const member = await gate(request, reply, "profile.update");
      if (!member) return reply;
      return act(request, reply, member, "accept");
    });

    // Rejecting and withdrawing unpublish it at once: asked first, naming the other organization.
    for (const action of ["reject", "withdraw"] as const) {
      app.post(`${base}/:id/${action}`, async (request, reply) => {
        const member = await gate(request, reply, "profile.update");
        if (!member) return reply;
        if (isConfirmed(request)) return act(request, reply, member, action);
        return tryForm(
          async () => {
            const e = await getEndorsement(store, member.actor, member.organizationId, uuidParam(request));
            const path = consolePath(member.organizationId, "endorsements");
            return askFirst(kit, request, reply, member, "endorsements", {
              question:
                action === "reject"
                  ? `Reject the endorsement by ${e.endorser_name}?`
                  : `Withdraw your endorsement of ${e.endorsed_name}?`,
              consequences: [
                e.state !== "accepted"
                  ? "It will not be published."
                  : e.target_kind === "badge_template"
                    ? "It is no longer published: it leaves the credentials of the template's badges and their pages at once."
                    : `It is no longer published: it leaves ${e.endorsed_name}'s issuer profile and page at once.`,
                action === "reject"
                  ? `${e.endorser_name} can endorse you again later.`
                  : "You can endorse them again later; they would accept it anew.",
              ],
              action: `${path}/${e.id}/${action}`,
              confirm: action === "reject" ? "Reject endorsement" : "Withdraw endorsement",
              back: path,
            });
          },
          (error) => show(request, reply, member, 422, { error }),
        );
      });
    }
  };
