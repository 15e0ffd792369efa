import type { FastifyInstance, FastifyRequest } from "fastify";
import { ceilingOf, isScope, type Scope, scopesWithinCeiling } from "../../../core/auth/mod.ts";
import {
  CreateOAuthApplicationInput,
  createOAuthApplication,
  deleteOAuthApplication,
  getOAuthApplication,
  listOAuthApplications,
  oauthApplicationJson,
  UpdateOAuthApplicationInput,
  updateOAuthApplication,
} from "../../../core/credentials/mod.ts";
import { notFound } from "../../../core/errors/mod.ts";
import { field } from "../routes_public.ts";
import { doneNotice, sentValue } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { changeContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { moreLink, requestedPage } from "./console_paging.ts";
import { checked, fieldValues, tryForm } from "./form_fields.ts";
import { type ApplicationForm, applicationEditPage, applicationsPage } from "./oauth_application_pages.ts";
import { keepForOneView, stringsOf, takeOneView } from "./once_shown.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = {
  created: "Application created.",
  saved: "Application saved.",
  deleted: "Application deleted: its access tokens no longer work.",
};

const appId = (request: FastifyRequest): number => {
  const sent = sentValue(request.params, "id");
  const raw = typeof sent === "string" ? sent : "";
  const id = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : 0;
  if (id < 1 || id > 2_147_483_647) throw notFound("OAuth application");
  return id;
};

/** Developers > OAuth applications: the same core use cases as `/organizations/<org>/oauth_applications`. */
export const oauthApplicationRoutes =
  (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
    const base = "/console/:org/developers/oauth_applications";
    const offered = (member: ConsoleMember): Scope[] => scopesWithinCeiling(ceilingOf(member.credential));
    const scopesOf = (request: FastifyRequest): Scope[] => fieldValues(request, "scopes").filter(isScope);

    const isCreated = stringsOf("name", "uid", "secret");
    const showList: MemberPage<
      [
        extra?: {
          error?: string | null;
          form?: { name: string; description: string; scopes: readonly string[] };
        },
      ]
    > = async (request, reply, member, status, extra = {}) => {
      const req = requestedPage(request);
      const page = await listOAuthApplications(deps, member.organizationId, req);
      const more = moreLink(consolePath(member.organizationId, "oauth_applications"), req, page, "More applications");
      const created = takeOneView(
        kit,
        deps.secrets,
        request,
        reply,
        member,
        "oauth_applications",
        "oauth_app",
        isCreated,
      );
      return kit.page(
        reply,
        status,
        applicationsPage(kit.frame(request, reply, "OAuth applications"), member, {
          rows: page.items.map((a) => ({ app: oauthApplicationJson(a), dataServices: a.data_services_enabled })),
          offered: offered(member),
          notice: doneNotice(NOTICES, request),
          error: extra.error ?? null,
          created,
          form: extra.form ?? { name: "", description: "", scopes: offered(member) },
          more,
        }),
      );
    };

    app.get(base, memberPageRoute(gate, "developers.read", showList));

    app.post(base, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      const form = {
        name: field(request, "name"),
        description: field(request, "description"),
        scopes: scopesOf(request),
      };
      return tryForm(
        async () => {
          const input = checked<CreateOAuthApplicationInput>(
            CreateOAuthApplicationInput,
            {
              name: form.name,
              ...(form.description.trim() ? { description: form.description } : {}),
              scopes: form.scopes,
            },
            "application",
          );
          const org = await deps.organizations.get(member.organizationId);
          if (!org) throw notFound("Organization");
          const { app: created, secret } = await createOAuthApplication(
            deps,
            changeContext(kit, deps, member, request),
            org,
            member.credential,
            input,
          );
          // A reload of the page that follows must not create another: the secret goes along sealed, for one view.
          keepForOneView(kit, deps.secrets, request, reply, member, "oauth_applications", "oauth_app", {
            name: created.name,
            uid: created.uid,
            secret,
          });
          return reply.redirect(`${consolePath(member.organizationId, "oauth_applications")}?done=created`, 303);
        },
        (error) => showList(request, reply, member, 422, { error, form }),
      );
    });

    const showEdit: MemberPage<[error: string | null, typed?: ApplicationForm]> = async (
      request,
      reply,
      member,
      status,
      error,
      typed,
    ) => {
      const record = await getOAuthApplication(deps, member.organizationId, appId(request));
      return kit.page(
        reply,
        status,
        applicationEditPage(kit.frame(request, reply, record.name), member, {
          app: oauthApplicationJson(record),
          dataServices: record.data_services_enabled,
          offered: offered(member),
          error,
          form: typed ?? null,
        }),
      );
    };

    app.get(`${base}/:id`, memberPageRoute(gate, "developers.write", showEdit, null));

    app.post(`${base}/:id`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      const id = appId(request);
      return tryForm(
        async () => {
          const description = field(request, "description");
          const input = checked<UpdateOAuthApplicationInput>(
            UpdateOAuthApplicationInput,
            {
              name: field(request, "name"),
              description: description.trim() ? description : null,
              scopes: scopesOf(request),
            },
            "application",
          );
          await updateOAuthApplication(deps, changeContext(kit, deps, member, request), member.credential, id, input);
          return reply.redirect(`${consolePath(member.organizationId, "oauth_applications")}?done=saved`, 303);
        },
        (error) =>
          showEdit(request, reply, member, 422, error, {
            name: field(request, "name"),
            description: field(request, "description"),
            scopes: scopesOf(request),
          }),
      );
    });

    app.post(`${base}/:id/delete`, async (request, reply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      if (!isConfirmed(request)) {
        const record = await getOAuthApplication(deps, member.organizationId, appId(request));
        const list = consolePath(member.organizationId, "oauth_applications");
        return askFirst(kit, request, reply, member, "oauth_applications", {
          question: `Delete the application “${record.name}”?`,
          consequences: [
            `Its access tokens stop working at once, and software using its client id (${record.uid}) can no longer get new ones.`,
            "This cannot be undone: a new application gets a new client id and secret.",
          ],
          action: `${list}/${record.id}/delete`,
          confirm: "Delete application",
          back: `${list}/${record.id}`,
        });
      }
      await deleteOAuthApplication(
        deps,
        changeContext(kit, deps, member, request),
        member.credential,
        member.organizationId,
        appId(request),
      );
      return reply.redirect(`${consolePath(member.organizationId, "oauth_applications")}?done=deleted`, 303);
    });
  };
