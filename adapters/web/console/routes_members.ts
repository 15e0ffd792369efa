import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validationFailed } from "../../../core/errors/mod.ts";
import {
  cancelInvitation,
  changeRole,
  getInvitation,
  getMember,
  invite,
  isRole,
  listInvitations,
  listMembers,
  type Role,
  removeMember,
} from "../../../core/members/mod.ts";
import { isEmailAddress, pageRequest } from "../../../core/shared/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { tryForm } from "./form_fields.ts";
import { membersPage } from "./member_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = {
  invited: "Invitation sent.",
  resent: "Invitation sent again: the earlier link no longer works.",
  cancelled: "Invitation cancelled.",
  role: "Role changed.",
  removed: "Member removed.",
};

/** Members: the same member use cases as `/organizations/<org>/memberships` and `/invitations`. */
export const memberRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const base = "/console/:org/members";
  const ctx = () => consoleContext(kit, deps);

  const show: MemberPage<[extra?: { error?: string; form?: { email: string; role: Role } }]> = async (
    request,
    reply,
    member,
    status,
    extra = {},
  ) => {
    // An organization's people fit a page of 100; the API pages further.
    const req = pageRequest(1, 100);
    const [members, invitations] = await Promise.all([
      listMembers(deps.members, member.actor, member.organizationId, req),
      listInvitations(deps.members, ctx(), member.actor, member.organizationId, req),
    ]);
    return kit.page(
      reply,
      status,
      membersPage(kit.frame(request, reply, "Members"), member, {
        members: members.items,
        invitations: invitations.items,
        notice: doneNotice(NOTICES, request),
        error: extra.error ?? null,
        form: extra.form ?? { email: "", role: "viewer" },
      }),
    );
  };

  const change =
    (
      action: "members.invite" | "members.change_role" | "members.remove",
      work: (m: ConsoleMember, r: FastifyRequest) => Promise<string>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const member = await gate(request, reply, action);
      if (!member) return reply;
      return tryForm(
        async () => {
          const done = await work(member, request);
          // A member who left has no page here any more.
          if (done === "left") return reply.redirect("/console", 303);
          return reply.redirect(`${consolePath(member.organizationId, "members")}?done=${done}`, 303);
        },
        (error) => {
          const role = field(request, "role");
          return show(request, reply, member, 422, {
            error,
            form: { email: field(request, "email").slice(0, 320), role: isRole(role) ? role : "viewer" },
          });
        },
      );
    };

  const roleField = (request: FastifyRequest): Role => {
    const role = field(request, "role");
    if (!isRole(role)) throw validationFailed("Choose a role", [{ field: "role", message: "is not a role" }]);
    return role;
  };

  app.get(base, memberPageRoute(gate, "members.read", show));

  app.post(
    `${base}/invitations`,
    change("members.invite", async (member, request) => {
      const email = field(request, "email").trim();
      if (!isEmailAddress(email) || email.length > 320)
        throw validationFailed("Check the address", [{ field: "email", message: "is not an e-mail address" }]);
      await invite(deps.members, ctx(), member.actor, request.ip, member.organizationId, {
        email,
        role: roleField(request),
      });
      return "invited";
    }),
  );

  app.post(
    `${base}/invitations/:id/resend`,
    change("members.invite", async (member, request) => {
      // Inviting the address again with the same role: a fresh link, the old one stops working.
      const pending = await getInvitation(deps.members, ctx(), member.actor, member.organizationId, uuidParam(request));
      await invite(deps.members, ctx(), member.actor, request.ip, member.organizationId, {
        email: pending.email,
        role: pending.role,
      });
      return "resent";
    }),
  );

  app.post(
    `${base}/invitations/:id/cancel`,
    change("members.invite", async (member, request) => {
      await cancelInvitation(deps.members, ctx(), member.actor, request.ip, member.organizationId, uuidParam(request));
      return "cancelled";
    }),
  );

  app.post(
    `${base}/:id/role`,
    change("members.change_role", async (member, request) => {
      await changeRole(
        deps.members,
        ctx(),
        member.actor,
        request.ip,
        member.organizationId,
        uuidParam(request),
        roleField(request),
      );
      return "role";
    }),
  );

  // Removing someone, or leaving, is asked first; the question names who.
  const askRemove = async (request: FastifyRequest, reply: FastifyReply, member: ConsoleMember) => {
    const target = await getMember(deps.members, member.actor, member.organizationId, uuidParam(request));
    const self = member.actor.kind === "member" && member.actor.accountId === target.membership.user_id;
    const name = `${target.first_name} ${target.last_name}`.trim() || (target.email ?? "this member");
    const path = consolePath(member.organizationId, "members");
    return askFirst(kit, request, reply, member, "members", {
      question: self ? `Leave ${member.organizationName}?` : `Remove ${name} from ${member.organizationName}?`,
      consequences: self
        ? ["You lose access to this organization's console at once. An owner or admin can invite you again."]
        : [
            `${name} loses access to this organization's console at once. What they did stays, and the audit log keeps it.`,
            "You can invite them again later.",
          ],
      action: `${path}/${target.membership.id}/remove`,
      confirm: self ? "Leave organization" : "Remove member",
      back: path,
    });
  };

  app.post(`${base}/:id/remove`, async (request, reply) => {
    if (isConfirmed(request)) return removeConfirmed(request, reply);
    const member = await gate(request, reply, "members.remove");
    if (!member) return reply;
    return tryForm(
      () => askRemove(request, reply, member),
      (error) => show(request, reply, member, 422, { error }),
    );
  });

  const removeConfirmed = change("members.remove", async (member, request) => {
    const id = uuidParam(request);
    const mine = await deps.members.members.membershipOf(
      member.actor.kind === "member" ? member.actor.accountId : "",
      member.organizationId,
    );
    await removeMember(deps.members, ctx(), member.actor, request.ip, member.organizationId, id);
    return mine?.id === id ? "left" : "removed";
  });
};
