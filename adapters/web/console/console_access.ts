import type { FastifyReply, FastifyRequest } from "fastify";
import { notFound } from "../../../core/errors/mod.ts";
import type { MemberAction } from "../../../core/members/mod.ts";
import { html } from "../html.ts";
import { messagePage } from "../layout.ts";
import { uuidParam } from "../routes_public.ts";
import type { WebKit } from "../web_deps.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";

const ACTION_TEXT: Partial<Record<MemberAction, string>> = {
  "profile.read": "see this organization",
  "profile.update": "change this organization's profile",
  "members.read": "see this organization's members",
  "members.invite": "invite members",
  "members.change_role": "change members' roles",
  "members.remove": "remove members",
  "ownership.change": "change the organization's owners",
  "developers.read": "open the Developers section",
  "developers.write": "change the Developers settings",
  "audit.read": "read the audit log",
};

/**
 * The gate of every console route: signed out, to sign-in and back; not a member, or a role core
 * does not allow `action`, a 403 page saying so. Returns the member, or null once answered.
 */
export const consoleGate =
  (kit: WebKit, deps: ConsoleDeps) =>
  async (request: FastifyRequest, reply: FastifyReply, action: MemberAction): Promise<ConsoleMember | null> => {
    if (!request.earner) {
      // A form cannot be sent again after sign-in: come back to the page it was on.
      const back = request.method === "GET" ? request.url : backPage(request.url);
      void reply.redirect(`/sign_in?next=${encodeURIComponent(back)}`, 303);
      return null;
    }
    const organizationId = uuidParam(request, "org");
    const member = await deps.membership(request.earner.user.id, organizationId);
    if (!member) {
      if (!(await deps.organizations.get(organizationId))) throw notFound("Organization");
      void refuse(kit, request, reply, "You are not a member of this organization.");
      return null;
    }
    if (!member.allowed(action)) {
      void refuse(
        kit,
        request,
        reply,
        `Your role (${member.role}) does not allow you to ${ACTION_TEXT[action] ?? "do this"}.`,
      );
      return null;
    }
    return member;
  };

/** A GET route answering with `show`'s page (200) to a member whose role allows `action`. */
export const memberPageRoute =
  <Shows extends unknown[]>(
    gate: ReturnType<typeof consoleGate>,
    action: MemberAction,
    show: MemberPage<Shows>,
    ...shows: Shows
  ) =>
  async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const member = await gate(request, reply, action);
    if (!member) return reply;
    return show(request, reply, member, 200, ...shows);
  };

/** The page a console form lives on: its path up to the section (`…/webhooks/secret` → `…/webhooks`). */
const backPage = (url: string): string => {
  const path = url.split("?")[0] ?? "";
  const m = /^\/console\/[^/]+(?:\/developers\/[a-z_]+|\/[a-z_]+)?/.exec(path);
  return m ? m[0] : "/console";
};

const refuse = (kit: WebKit, request: FastifyRequest, reply: FastifyReply, why: string) =>
  kit.page(
    reply,
    403,
    messagePage(
      { ...kit.frame(request, reply, "Not allowed"), noindex: true },
      "Not allowed",
      [why, "An owner or admin of the organization can change your role."],
      html`<p><a class="button" href="/console">Back to your organizations</a></p>`,
    ),
  );

/** What a console use case runs with: core reads no clock and makes no ids, so the console hands it both. */
export const consoleContext = (kit: WebKit, deps: Pick<ConsoleDeps, "newId">) => ({
  now: kit.deps.clock(),
  newId: deps.newId,
});

/** A change `member` makes from the request's address: its time, new ids and whom the audit log names. */
export const changeContext = (
  kit: WebKit,
  deps: Pick<ConsoleDeps, "newId">,
  member: ConsoleMember,
  request: FastifyRequest,
) => ({ ...consoleContext(kit, deps), by: member.by(request.ip) });
