import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { flagsOf } from "../../../core/auth/mod.ts";
import {
  CreateAuthorizationTokenInput,
  createAuthorizationToken,
  listAuthorizationTokens,
  manageableToken,
  replaceAuthorizationToken,
  revokeAuthorizationToken,
} from "../../../core/credentials/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { type TokenForm, tokensPage } from "./authorization_token_pages.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { changeContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { moreLink, requestedPage } from "./console_paging.ts";
import { checked, tryForm } from "./form_fields.ts";
import { keepForOneView, stringsOf, takeOneView } from "./once_shown.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = {
  created: "Token created.",
  rotated: "Token rotated: the old value no longer works.",
  revoked: "Token revoked: it no longer works.",
};

const isCreated = stringsOf("description", "value");

/** Developers > Authorization tokens: the same core use cases as `/organizations/<org>/authorization_tokens`. */
export const authorizationTokenRoutes =
  (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
    const base = "/console/:org/developers/authorization_tokens";

    const show: MemberPage<[extra?: { error?: string | null; form?: TokenForm }]> = async (
      request,
      reply,
      member,
      status,
      extra = {},
    ) => {
      const req = requestedPage(request);
      const page = await listAuthorizationTokens(deps, member.credential, req);
      const more = moreLink(consolePath(member.organizationId, "authorization_tokens"), req, page, "More tokens");
      const created = takeOneView(
        kit,
        deps.secrets,
        request,
        reply,
        member,
        "authorization_tokens",
        "token",
        isCreated,
      );
      return kit.page(
        reply,
        status,
        tokensPage(kit.frame(request, reply, "Authorization tokens"), member, {
          tokens: page.items,
          now: kit.deps.clock(),
          ceiling: flagsOf(member.credential, "authorization_tokens"),
          notice: doneNotice(NOTICES, request),
          error: extra.error ?? null,
          created,
          form: extra.form ?? null,
          more,
        }),
      );
    };

    app.get(base, memberPageRoute(gate, "developers.read", show));

    app.post(base, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      return tryForm(
        async () => {
          // An unticked box is a flag asked to be off: the token never inherits more than was chosen.
          const input = checked<CreateAuthorizationTokenInput>(
            CreateAuthorizationTokenInput,
            {
              description: field(request, "description"),
              read_enabled: field(request, "read_enabled") === "on",
              write_enabled: field(request, "write_enabled") === "on",
              delete_enabled: field(request, "delete_enabled") === "on",
            },
            "token",
          );
          const { token, value } = await createAuthorizationToken(
            deps,
            changeContext(kit, deps, member, request),
            member.credential,
            input,
          );
          return shownOnce(request, reply, member, { description: token.description, value }, "created");
        },
        (error) =>
          show(request, reply, member, 422, {
            error,
            form: {
              description: field(request, "description"),
              read_enabled: field(request, "read_enabled") === "on",
              write_enabled: field(request, "write_enabled") === "on",
              delete_enabled: field(request, "delete_enabled") === "on",
            },
          }),
      );
    });

    /** The new value goes to the list page sealed, for one view: a reload makes no other token. */
    const shownOnce = (
      request: FastifyRequest,
      reply: FastifyReply,
      member: ConsoleMember,
      created: { description: string; value: string },
      done: string,
    ) => {
      keepForOneView(kit, deps.secrets, request, reply, member, "authorization_tokens", "token", created);
      return reply.redirect(`${consolePath(member.organizationId, "authorization_tokens")}?done=${done}`, 303);
    };

    /** The question before a token is revoked or rotated, naming it. */
    const ask = async (request: FastifyRequest, reply: FastifyReply, member: ConsoleMember, rotate: boolean) => {
      const token = await manageableToken(deps, member.credential, uuidParam(request));
      const name = token.description ? `“${token.description}”` : "this untitled token";
      const list = consolePath(member.organizationId, "authorization_tokens");
      return askFirst(kit, request, reply, member, "authorization_tokens", {
        question: rotate ? `Rotate ${name}?` : `Revoke ${name}?`,
        consequences: rotate
          ? [
              "Its current value stops working at once. A new value with the same permissions is shown once, on the next page.",
              "Every program using the current value must be given the new one.",
            ]
          : ["It stops working at once, for every program using it. This cannot be undone."],
        action: `${list}/${token.id}/${rotate ? "rotate" : "revoke"}`,
        confirm: rotate ? "Rotate token" : "Revoke token",
        back: list,
      });
    };

    app.post(`${base}/:id/rotate`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      if (!isConfirmed(request)) return ask(request, reply, member, true);
      const { token, value } = await replaceAuthorizationToken(
        deps,
        changeContext(kit, deps, member, request),
        member.credential,
        uuidParam(request),
      );
      return shownOnce(request, reply, member, { description: token.description, value }, "rotated");
    });

    app.post(`${base}/:id/revoke`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      if (!isConfirmed(request)) return ask(request, reply, member, false);
      await revokeAuthorizationToken(
        deps,
        changeContext(kit, deps, member, request),
        member.credential,
        member.organizationId,
        uuidParam(request),
      );
      return reply.redirect(`${consolePath(member.organizationId, "authorization_tokens")}?done=revoked`, 303);
    });
  };
