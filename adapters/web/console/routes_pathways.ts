import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TEMPLATE_LIST } from "../../../core/badges/mod.ts";
import { completePathwayEarners, type IssuingContext, listTemplates } from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import {
  archivePathway,
  type CompleteHeld,
  CreatePathwayInput,
  createPathway,
  deletePathway,
  EARNER_LIST,
  getPathway,
  listPathways,
  MILESTONES_MAX,
  PATHWAY_LIST,
  type PathwayRecord,
  type PathwayStore,
  pathwayEarnerJson,
  pathwayEarners,
  publishPathway,
  UpdatePathwayInput,
  updatePathway,
} from "../../../core/pathways/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { requestedPage } from "./console_paging.ts";
import { checked, fieldValues, tryForm } from "./form_fields.ts";
import {
  emptyPathwayForm,
  type MilestoneForm,
  type PathwayForm,
  pathwayEarnersPage,
  pathwayEditPage,
  pathwayForm,
  pathwaysPage,
} from "./pathway_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";
import { grantorTemplates } from "./routes_issuers.ts";

const NOTICES: Record<string, string> = {
  created: "Pathway created as a draft: publish it to start keeping earners' progress.",
  saved: "Pathway saved.",
  published: "Pathway published: earners' progress is kept from now on.",
  archived: "Pathway archived: kept and read, its progress no longer kept.",
  deleted: "Pathway deleted.",
};

/**
 * The templates the form offers: the organization's, by name (a pathway names at most 20 × 50),
 * then its grantors' active templates that it may issue.
 */
const TEMPLATES_SHOWN = 500;
const PATHWAYS_PER_PAGE = 25;
const EARNERS_PER_PAGE = 50;

/** The milestone rows as sent; a row with neither a name nor a template is an empty row and skipped. */
const sentForm = (request: FastifyRequest, rows: number): PathwayForm => {
  const milestones: MilestoneForm[] = [];
  for (let i = 0; i < rows; i++) {
    const row = {
      name: field(request, `m${i}_name`).slice(0, 500),
      templateIds: fieldValues(request, `m${i}_templates`).slice(0, 100),
      required: field(request, `m${i}_required`).trim().slice(0, 10),
    };
    if (row.name.trim() !== "" || row.templateIds.length > 0) milestones.push(row);
  }
  return {
    name: field(request, "name").slice(0, 500),
    description: field(request, "description").slice(0, 4000),
    completion: field(request, "completion_badge_template_id").trim(),
    milestones,
    recommendNext: field(request, "recommend_next") === "on",
  };
};

/** The form as the API's body: `required` a number when typed, absent (all) when left empty. */
const inputOf = (form: PathwayForm) => ({
  name: form.name.trim(),
  description: form.description,
  completion_badge_template_id: form.completion,
  milestones: form.milestones.map((m) => ({
    name: m.name.trim(),
    badge_template_ids: m.templateIds,
    ...(m.required === "" ? {} : { required: /^\d+$/.test(m.required) ? Number(m.required) : m.required }),
  })),
  recommend_next: form.recommendNext,
});

/**
 * Pathways: the same use cases as `/organizations/<org>/pathways`, read under `templates.read` and
 * changed under `templates.write` (core's pathways check both again).
 */
export const pathwayRoutes =
  (kit: WebKit, deps: ConsoleDeps, store: PathwayStore, gate: ConsoleGate) => async (app: FastifyInstance) => {
    const base = "/console/:org/pathways";
    const b = deps.badges;
    const ctx = () => consoleContext(kit, deps);
    const issuingCtx = (member: ConsoleMember, request: FastifyRequest): IssuingContext => ({
      now: kit.deps.clock(),
      newId: b.ids.newId,
      newEventId: b.ids.newEventId,
      newSalt: b.ids.newSalt,
      by: member.by(request.ip),
    });
    /** The earners holding every milestone at a publication or new version get their completion badges, as REST does. */
    const completeHeld =
      (member: ConsoleMember, request: FastifyRequest): CompleteHeld =>
      (pathway) =>
        completePathwayEarners(b.issuing, issuingCtx(member, request), pathway.id);
    const path = (member: ConsoleMember, id?: string) =>
      `${consolePath(member.organizationId, "pathways")}${id ? `/${id}` : ""}`;
    const templates = async (member: ConsoleMember) =>
      (
        await listTemplates(
          deps.templates,
          member.organizationId,
          parseListQuery(TEMPLATE_LIST, [["sort", "name"]]),
          pageRequest(1, TEMPLATES_SHOWN),
        )
      ).items.map((v) => v.template);

    const showList: MemberPage = async (request, reply, member, status) => {
      const req = requestedPage(request, PATHWAYS_PER_PAGE);
      const page = await listPathways(
        store,
        member.actor,
        member.organizationId,
        parseListQuery(PATHWAY_LIST, []),
        req,
      );
      const count = async (p: PathwayRecord, state?: "completed") =>
        p.state === "draft"
          ? 0
          : (
              await pathwayEarners(
                store,
                member.actor,
                member.organizationId,
                p.id,
                parseListQuery(EARNER_LIST, state ? [["state", state]] : []),
                pageRequest(1, 1),
              )
            ).total;
      const rows = await Promise.all(
        page.items.map(async (p) => ({ pathway: p, earners: await count(p), completed: await count(p, "completed") })),
      );
      return kit.page(
        reply,
        status,
        pathwaysPage(kit.frame(request, reply, "Pathways"), member, {
          rows,
          total: page.total,
          req,
          notice: doneNotice(NOTICES, request),
        }),
      );
    };

    const showEdit: MemberPage<
      [pathway: PathwayRecord | null, extra?: { form?: PathwayForm; error?: string }]
    > = async (request, reply, member, status, pathway, extra = {}) =>
      kit.page(
        reply,
        status,
        pathwayEditPage(kit.frame(request, reply, pathway ? pathway.name : "New pathway"), member, {
          pathway,
          templates: await templates(member),
          grantors: await grantorTemplates(deps.issuerAuthorizations, member),
          form: extra.form ?? (pathway ? pathwayForm(pathway) : emptyPathwayForm),
          error: extra.error ?? null,
          notice: doneNotice(NOTICES, request),
        }),
      );

    const done = (reply: FastifyReply, to: string, what: string) => reply.redirect(`${to}?done=${what}`, 303);

    app.get(base, memberPageRoute(gate, "templates.read", showList));

    app.get(`${base}/new`, async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      return showEdit(request, reply, member, 200, null);
    });

    app.get(`${base}/:id`, async (request, reply) => {
      const member = await gate(request, reply, "templates.read");
      if (!member) return reply;
      const pathway = await getPathway(store, member.actor, member.organizationId, uuidParam(request));
      return showEdit(request, reply, member, 200, pathway);
    });

    app.post(base, async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      const form = sentForm(request, MILESTONES_MAX);
      return tryForm(
        async () => {
          const input = checked<CreatePathwayInput>(CreatePathwayInput, inputOf(form), "pathway");
          const made = await createPathway(store, ctx(), member.actor, request.ip, member.organizationId, input);
          return done(reply, path(member, made.id), "created");
        },
        (error) => showEdit(request, reply, member, 422, null, { form, error }),
      );
    });

    app.post(`${base}/:id`, async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      const id = uuidParam(request);
      const form = sentForm(request, MILESTONES_MAX);
      return tryForm(
        async () => {
          const input = checked<UpdatePathwayInput>(UpdatePathwayInput, inputOf(form), "pathway");
          await updatePathway(
            store,
            ctx(),
            member.actor,
            request.ip,
            member.organizationId,
            id,
            input,
            completeHeld(member, request),
          );
          return done(reply, path(member, id), "saved");
        },
        async (error) =>
          showEdit(request, reply, member, 422, await getPathway(store, member.actor, member.organizationId, id), {
            form,
            error,
          }),
      );
    });

    const refusedOn = async (request: FastifyRequest, reply: FastifyReply, member: ConsoleMember, error: string) =>
      showEdit(
        request,
        reply,
        member,
        422,
        await getPathway(store, member.actor, member.organizationId, uuidParam(request)),
        {
          error,
        },
      );

    app.post(`${base}/:id/publish`, async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      const id = uuidParam(request);
      return tryForm(
        async () => {
          await publishPathway(
            store,
            ctx(),
            member.actor,
            request.ip,
            member.organizationId,
            id,
            completeHeld(member, request),
          );
          return done(reply, path(member, id), "published");
        },
        (error) => refusedOn(request, reply, member, error),
      );
    });

    // Archiving stops its progress and deleting removes a draft for good: both asked first.
    for (const action of ["archive", "delete"] as const) {
      app.post(`${base}/:id/${action}`, async (request, reply) => {
        const member = await gate(request, reply, "templates.write");
        if (!member) return reply;
        const id = uuidParam(request);
        return tryForm(
          async () => {
            if (isConfirmed(request)) {
              if (action === "archive") {
                await archivePathway(store, ctx(), member.actor, request.ip, member.organizationId, id);
                return done(reply, path(member, id), "archived");
              }
              await deletePathway(store, ctx(), member.actor, request.ip, member.organizationId, id);
              return done(reply, path(member), "deleted");
            }
            const p = await getPathway(store, member.actor, member.organizationId, id);
            return askFirst(kit, request, reply, member, "pathways", {
              question: action === "archive" ? `Archive the pathway “${p.name}”?` : `Delete the pathway “${p.name}”?`,
              consequences:
                action === "archive"
                  ? [
                      "It is kept and can still be read, with its earners' progress as it stands.",
                      "Their progress is no longer kept, and nobody completes it any more. This cannot be undone.",
                    ]
                  : ["The draft and its milestones are removed. This cannot be undone."],
              action: `${path(member, id)}/${action}`,
              confirm: action === "archive" ? "Archive pathway" : "Delete pathway",
              back: path(member, id),
            });
          },
          (error) => refusedOn(request, reply, member, error),
        );
      });
    }

    app.get(`${base}/:id/earners`, async (request, reply) => {
      const member = await gate(request, reply, "templates.read");
      if (!member) return reply;
      const req = requestedPage(request, EARNERS_PER_PAGE);
      const page = await pathwayEarners(
        store,
        member.actor,
        member.organizationId,
        uuidParam(request),
        parseListQuery(EARNER_LIST, []),
        req,
      );
      return kit.page(
        reply,
        200,
        pathwayEarnersPage(kit.frame(request, reply, `Earners of ${page.pathway.name}`), member, {
          pathway: page.pathway,
          earners: page.items.map((r) => pathwayEarnerJson(page.pathway, r)),
          total: page.total,
          req,
        }),
      );
    });
  };
