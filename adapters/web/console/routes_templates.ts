import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type BadgeTemplateRecord,
  TEMPLATE_LIST,
  type TemplateCreateBody,
  TemplateCreateBody as TemplateCreateSchema,
  type TemplateImageChange,
  type TemplateUpdateBody,
  TemplateUpdateBody as TemplateUpdateSchema,
} from "../../../core/badges/mod.ts";
import { CoreError, notFound, settle } from "../../../core/errors/mod.ts";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  type IssuingContext,
  listTemplates,
  PREVIEW_RECIPIENT,
  previewBadgeContent,
  templateAction,
  updateTemplate,
} from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import { IMAGE_MAX_BYTES } from "../../../core/organizations/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { renderMail } from "../../mail/mod.ts";
import { storeImage } from "../../obi/mod.ts";
import { bufferUpload, type MultipartForm } from "../../uploads/mod.ts";
import { html, renderPage } from "../html.ts";
import { field } from "../routes_public.ts";
import { doneNotice, sentValue } from "../sent.ts";
import { readUploadForm, UPLOAD_PAGE_MAX_BYTES, UPLOAD_ROUTE } from "../upload_forms.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { moreLink, requestedPage } from "./console_paging.ts";
import { checked, tryForm } from "./form_fields.ts";
import type { ConsoleGate } from "./routes_console.ts";
import {
  EMPTY_FORM,
  formOfTemplate,
  type TemplateForm,
  templateEditPage,
  templateMailPage,
  templateNewPage,
  templatesPage,
} from "./template_pages.ts";

const NOTICES: Record<string, string> = {
  created: "Template created.",
  saved: "Template saved.",
  archived: "Template archived: it issues no more badges.",
  unarchived: "Template unarchived.",
  deleted: "Template deleted.",
};

const IMAGE_MIB = IMAGE_MAX_BYTES / 1024 / 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LIST_PAGE = 50;
/** Same-named templates named on a template's page. */
const SAME_NAME_SHOWN = 6;

/**
 * The mail's HTML part is the sender's markup with inline styles, which the console's policy
 * (`style-src 'self'`) refuses, and an `<iframe srcdoc>` inherits the page's policy. So it is
 * served on its own address with a policy of its own: no script, no plugin, no form, no base, a
 * sandbox (an opaque origin: nothing it holds can read the console's cookies or pages), images
 * from anywhere a mail may show them, and framing by the console only.
 */
const MAIL_PREVIEW_CSP = [
  "default-src 'none'",
  "img-src http: https: data:",
  "style-src 'unsafe-inline'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "sandbox",
].join("; ");

const templateId = (request: FastifyRequest): string => {
  const sent = sentValue(request.params, "id");
  const id = typeof sent === "string" ? sent : "";
  if (!UUID.test(id)) throw notFound("Badge template");
  return id.toLowerCase();
};

const formOf = (request: FastifyRequest): TemplateForm => ({
  name: field(request, "name"),
  description: field(request, "description"),
  skills: field(request, "skills"),
  reporting_tags: field(request, "reporting_tags"),
  notification_message: field(request, "notification_message"),
  criteria_url: field(request, "criteria_url"),
  alignments: field(request, "alignments"),
  state: field(request, "state"),
  public: field(request, "public") === "on",
  allow_duplicate_badges: field(request, "allow_duplicate_badges") === "on",
});

const commaList = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** The form in the API's body shape, so the API's schema and use cases judge it. */
const bodyOf = (form: TemplateForm, state: string | null) => ({
  name: form.name,
  description: form.description,
  skills: commaList(form.skills),
  reporting_tags: commaList(form.reporting_tags),
  notification_message: form.notification_message.trim() === "" ? null : form.notification_message,
  criteria_url: form.criteria_url.trim() === "" ? null : form.criteria_url.trim(),
  alignments: form.alignments
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [name = "", url = "", ...rest] = line.split("|").map((s) => s.trim());
      const description = rest.join(" | ").trim();
      return { name, url, description: description === "" ? null : description };
    }),
  public: form.public,
  allow_duplicate_badges: form.allow_duplicate_badges,
  ...(state === null || state === "draft" ? { state: form.state === "active" ? "active" : "draft" } : {}),
});

/** Badge templates: the same core use cases and schema as `/organizations/<org>/badge_templates`. */
export const templateRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const base = "/console/:org/templates";
  const issuing = deps.templates;
  const ctx = (member: ConsoleMember, request: FastifyRequest): IssuingContext => {
    const c = kit.deps.context();
    return { now: c.now, newId: c.newId, newEventId: c.newEventId, newSalt: c.newSalt, by: member.by(request.ip) };
  };

  // The create and edit forms are multipart (they carry the image); their text fields read as any form's.
  // An image past the limit is dropped and the form shown again with what was typed, the limit named.
  const readForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ upload: MultipartForm<Buffer>; imageError: string | null }> => {
    const read = await settle(() =>
      readUploadForm(kit, request, reply, {
        fileField: "image",
        maxFileBytes: IMAGE_MAX_BYTES,
        tooLarge: () => new CoreError("payload_too_large", `The image is larger than ${IMAGE_MIB} MiB`),
        sink: bufferUpload,
        dropOversizedFile: { maxBodyBytes: UPLOAD_PAGE_MAX_BYTES },
      }),
    );
    if (!read.ok) {
      if (read.error.code !== "payload_too_large") throw read.error;
      return {
        upload: { fields: new Map(), file: null },
        imageError: `${read.error.message}. Laurel could not read this form, so please fill it in again; the image may be at most ${IMAGE_MIB} MiB.`,
      };
    }
    return {
      upload: read.value,
      imageError: read.value.dropped
        ? `Image: the file you chose is larger than ${IMAGE_MIB} MiB, so nothing was saved. Choose a PNG or SVG of at most ${IMAGE_MIB} MiB; everything you typed is kept below.`
        : null,
    };
  };

  /** The uploaded image, checked and stored: its name; `undefined` when no file was chosen. */
  const uploaded = async (form: MultipartForm<Buffer>): Promise<TemplateImageChange> => {
    if (!form.file || form.file.content.length === 0) return undefined;
    return storeImage(deps.images, form.file.content, kit.deps.clock());
  };

  /** The templates named `name`, case aside (the name index): a second one is warned of, never refused. */
  const sameName = async (member: ConsoleMember, name: string): Promise<BadgeTemplateRecord[]> => {
    const query = parseListQuery(TEMPLATE_LIST, [["sort", "created_at"]]);
    const byName = { ...query, filters: { ...query.filters, name: { kind: "values" as const, values: [name] } } };
    const page = await listTemplates(issuing, member.organizationId, byName, pageRequest(1, SAME_NAME_SHOWN));
    return page.items.map((v) => v.template);
  };

  app.get(base, async (request, reply) => {
    const member = await gate(request, reply, "templates.read");
    if (!member) return reply;
    const req = requestedPage(request, LIST_PAGE);
    const query = parseListQuery(TEMPLATE_LIST, [["sort", "name"]]);
    const page = await listTemplates(issuing, member.organizationId, query, req);
    const path = consolePath(member.organizationId, "templates");
    const more = moreLink(path, req, page, "More templates");
    return kit.page(
      reply,
      200,
      templatesPage(kit.frame(request, reply, "Badge templates"), member, {
        templates: page.items.map((v) => v.template),
        publicUrl: kit.urls.publicUrl,
        notice: doneNotice(NOTICES, request),
        more,
      }),
    );
  });

  const showNew: MemberPage<[error: string | null, form?: TemplateForm]> = async (
    request,
    reply,
    member,
    status,
    error,
    form = EMPTY_FORM,
  ) => kit.page(reply, status, templateNewPage(kit.frame(request, reply, "New template"), member, { form, error }));

  app.get(`${base}/new`, memberPageRoute(gate, "templates.write", showNew, null));

  app.post(base, UPLOAD_ROUTE, async (request, reply) => {
    const member = await gate(request, reply, "templates.write");
    if (!member) return reply;
    const { upload, imageError } = await readForm(request, reply);
    const form = formOf(request);
    if (imageError) return showNew(request, reply, member, 413, imageError, form);
    return tryForm(
      async () => {
        const body = checked<TemplateCreateBody>(TemplateCreateSchema, bodyOf(form, null), "template");
        const owner = await deps.organizations.get(member.organizationId);
        if (!owner) throw notFound("Organization");
        const image = (await uploaded(upload)) ?? null;
        const view = await createTemplate(issuing, ctx(member, request), owner, body, image);
        return reply.redirect(
          `${consolePath(member.organizationId, "templates")}/${view.template.id}?done=created`,
          303,
        );
      },
      (error) => showNew(request, reply, member, 422, error, form),
    );
  });

  const showEdit: MemberPage<[error: string | null, form?: TemplateForm | null]> = async (
    request,
    reply,
    member,
    status,
    error,
    form = null,
  ) => {
    const { template } = await getTemplate(issuing, member.organizationId, templateId(request));
    return kit.page(
      reply,
      status,
      templateEditPage(kit.frame(request, reply, template.name), member, {
        template,
        publicUrl: kit.urls.publicUrl,
        form: form ?? formOfTemplate(template),
        notice: doneNotice(NOTICES, request),
        error,
        sameName: await sameName(member, template.name),
      }),
    );
  };

  app.get(`${base}/:id`, memberPageRoute(gate, "templates.write", showEdit, null));

  /** The pending-badge mail this template's badges send, rendered as the mail sender renders it. */
  const previewMail = async (member: ConsoleMember, id: string) => {
    const { template } = await getTemplate(issuing, member.organizationId, id);
    const issuer = await deps.organizations.get(member.organizationId);
    if (!issuer) throw notFound("Organization");
    const publicBase = kit.urls.publicUrl;
    return { template, mail: renderMail(previewBadgeContent(template, issuer, { publicBase })) };
  };

  app.get(`${base}/:id/mail`, async (request, reply) => {
    const member = await gate(request, reply, "templates.read");
    if (!member) return reply;
    const id = templateId(request);
    const { template, mail } = await previewMail(member, id);
    return kit.page(
      reply,
      200,
      templateMailPage(kit.frame(request, reply, `The mail of ${template.name}`), member, {
        template,
        mail,
        recipient: PREVIEW_RECIPIENT,
        htmlPart: `${consolePath(member.organizationId, "templates")}/${id}/mail.html`,
      }),
    );
  });

  app.get(`${base}/:id/mail.html`, async (request, reply) => {
    const member = await gate(request, reply, "templates.read");
    if (!member) return reply;
    const { mail } = await previewMail(member, templateId(request));
    return reply
      .code(200)
      .headers({
        "content-security-policy": MAIL_PREVIEW_CSP,
        "x-frame-options": "SAMEORIGIN",
        "cache-control": "no-store",
      })
      .type("text/html; charset=utf-8")
      .send(
        // The mail's HTML part as it is sent, whole: renderMail escaped every value in it.
        renderPage(
          html`<html lang="en"><head><meta charset="utf-8" /><title>${mail.subject}</title></head><body style="margin: 0; background: #ffffff" dangerouslySetInnerHTML=${{ __html: mail.html }}></body></html>`,
        ),
      );
  });

  app.post(`${base}/:id`, UPLOAD_ROUTE, async (request, reply) => {
    const member = await gate(request, reply, "templates.write");
    if (!member) return reply;
    const id = templateId(request);
    const { upload, imageError } = await readForm(request, reply);
    const form = formOf(request);
    if (imageError) return showEdit(request, reply, member, 413, imageError, form);
    return tryForm(
      async () => {
        const current: BadgeTemplateRecord = (await getTemplate(issuing, member.organizationId, id)).template;
        const body = checked<TemplateUpdateBody>(TemplateUpdateSchema, bodyOf(form, current.state), "template");
        const image = await uploaded(upload);
        await updateTemplate(issuing, ctx(member, request), member.organizationId, id, body, image);
        return reply.redirect(`${consolePath(member.organizationId, "templates")}/${id}?done=saved`, 303);
      },
      (error) => showEdit(request, reply, member, 422, error, form),
    );
  });

  for (const action of ["archive", "unarchive"] as const) {
    app.post(`${base}/:id/${action}`, async (request, reply) => {
      const member = await gate(request, reply, "templates.write");
      if (!member) return reply;
      const id = templateId(request);
      return tryForm(
        async () => {
          await templateAction(issuing, ctx(member, request), member.organizationId, id, action);
          return reply.redirect(`${consolePath(member.organizationId, "templates")}/${id}?done=${action}d`, 303);
        },
        (error) => showEdit(request, reply, member, 422, error),
      );
    });
  }

  app.post(`${base}/:id/delete`, async (request, reply) => {
    const member = await gate(request, reply, "templates.write");
    if (!member) return reply;
    const id = templateId(request);
    if (!isConfirmed(request)) {
      const { template } = await getTemplate(issuing, member.organizationId, id);
      const path = `${consolePath(member.organizationId, "templates")}/${id}`;
      return askFirst(kit, request, reply, member, "templates", {
        question: `Delete the template “${template.name}”?`,
        consequences: [
          "It is removed for good, with its image link and settings. This cannot be undone.",
          "Only a template that has issued no badge can be deleted; archiving keeps one without issuing more.",
        ],
        action: `${path}/delete`,
        confirm: "Delete template",
        back: path,
      });
    }
    return tryForm(
      async () => {
        await deleteTemplate(issuing, ctx(member, request), member.organizationId, id);
        return reply.redirect(`${consolePath(member.organizationId, "templates")}?done=deleted`, 303);
      },
      (error) => showEdit(request, reply, member, 422, error),
    );
  });
};
