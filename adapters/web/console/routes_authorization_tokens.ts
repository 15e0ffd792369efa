import type { FastifyInstance } from "fastify";
import { flagsOf } from "../../../core/auth/mod.ts";
import {
  CreateAuthorizationTokenInput,
  createAuthorizationToken,
  listAuthorizationTokens,
  replaceAuthorizationToken,
  revokeAuthorizationToken,
} from "../../../core/credentials/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { tokensPage } from "./authorization_token_pages.ts";
import { changeContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { moreLink, requestedPage } from "./console_paging.ts";
import { checked, tryForm } from "./form_fields.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = { revoked: "Token revoked: it no longer works." };

/** Developers > Authorization tokens: the same core use cases as `/organizations/<org>/authorization_tokens`. */
export const authorizationTokenRoutes =
  (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
    const base = "/console/:org/developers/authorization_tokens";

    const show: MemberPage<
      [extra?: { error?: string | null; created?: { description: string; value: string } | null }]
    > = async (request, reply, member, status, extra = {}) => {
      const req = requestedPage(request);
      const page = await listAuthorizationTokens(deps, member.credential, req);
      const more = moreLink(consolePath(member.organizationId, "authorization_tokens"), req, page, "More tokens");
      if (extra.created) reply.header("cache-control", "no-store");
      return kit.page(
        reply,
        status,
        tokensPage(kit.frame(request, reply, "Authorization tokens"), member, {
          tokens: page.items,
          now: kit.deps.clock(),
          ceiling: flagsOf(member.credential, "authorization_tokens"),
          notice: doneNotice(NOTICES, request),
          error: extra.error ?? null,
          created: extra.created ?? null,
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
          return show(request, reply, member, 201, { created: { description: token.description, value } });
        },
        (error) => show(request, reply, member, 422, { error }),
      );
    });

    app.post(`${base}/:id/rotate`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      const { token, value } = await replaceAuthorizationToken(
        deps,
        changeContext(kit, deps, member, request),
        member.credential,
        uuidParam(request),
      );
      return show(request, reply, member, 201, { created: { description: token.description, value } });
    });

    app.post(`${base}/:id/revoke`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
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
