import type { FastifyInstance } from "fastify";
import { decodeAuditCursor, encodeAuditCursor, readAuditLog } from "../../../core/audit/mod.ts";
import { acceptInvitation, invitationForToken } from "../../../core/members/mod.ts";
import { messagePage } from "../layout.ts";
import type { WebKit } from "../web_deps.ts";
import { consoleContext } from "./console_access.ts";
import type { ConsoleDeps } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { auditPage, invitationPage } from "./other_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";

const tokenOf = (params: unknown): string => {
  const token = (params as { token?: string }).token ?? "";
  return token.length > 0 && token.length <= 200 ? token : "";
};

/** The invitation link, the audit log and the organization's profile. */
export const moreConsoleRoutes =
  (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
    const ctx = () => consoleContext(kit, deps);

    const expired = (request: Parameters<typeof kit.frame>[0], reply: Parameters<typeof kit.frame>[1]) =>
      kit.page(
        reply,
        404,
        messagePage({ ...kit.frame(request, reply, "Invitation"), noindex: true }, "This invitation no longer works", [
          "It was used, cancelled, replaced by a newer one, or it expired. Ask the organization to invite you again.",
        ]),
      );

    app.get("/console/invitations/:token", async (request, reply) => {
      const token = tokenOf(request.params);
      const found = token ? await invitationForToken(deps.members, token, kit.deps.clock()) : null;
      if (!found) return expired(request, reply);
      const here = `/console/invitations/${encodeURIComponent(token)}`;
      const account = request.earner;
      const holds = account?.user.emails.some(
        (e) => e.confirmed && e.email.trim().toLowerCase() === found.invitation.email_key,
      );
      reply.header("cache-control", "no-store");
      return kit.page(
        reply,
        200,
        invitationPage(kit.frame(request, reply, "Invitation"), {
          ...found,
          mayAccept: holds === true,
          signInUrl: `/sign_in?next=${encodeURIComponent(here)}&email=${encodeURIComponent(found.invitation.email)}`,
          action: here,
        }),
      );
    });

    app.post("/console/invitations/:token", async (request, reply) => {
      const token = tokenOf(request.params);
      if (!request.earner) {
        return reply.redirect(
          `/sign_in?next=${encodeURIComponent(`/console/invitations/${encodeURIComponent(token)}`)}`,
          303,
        );
      }
      if (!token) return expired(request, reply);
      try {
        const { organization } = await acceptInvitation(deps.members, ctx(), request.earner.user.id, token, request.ip);
        return reply.redirect(consolePath(organization.id), 303);
      } catch (err) {
        if ((err as { code?: string }).code === "not_found") return expired(request, reply);
        throw err;
      }
    });

    app.get<{ Querystring: { after?: string } }>("/console/:org/audit", async (request, reply) => {
      const member = await gate(request, reply, "audit.read");
      if (!member) return reply;
      const after = decodeAuditCursor(request.query.after);
      const page = await readAuditLog(deps.audit, member.organizationId, after);
      const ids = [...new Set(page.items.filter((r) => r.actor.kind === "member").map((r) => r.actor.id ?? ""))];
      const accounts = await Promise.all(ids.map((id) => deps.members.members.account(id)));
      const names = new Map<string, string>();
      for (const a of accounts) {
        if (a)
          names.set(a.id, `${`${a.first_name} ${a.last_name}`.trim() || "A member"}${a.email ? ` <${a.email}>` : ""}`);
      }
      return kit.page(
        reply,
        200,
        auditPage(kit.frame(request, reply, "Audit log"), member, {
          items: page.items,
          names,
          next: page.next ? encodeAuditCursor(page.next) : null,
          first: after === null,
        }),
      );
    });
  };
