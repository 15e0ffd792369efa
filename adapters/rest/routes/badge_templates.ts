import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { TemplateImageChange } from "../../../core/badges/mod.ts";
import {
  BadgeTemplateJsonSchema,
  badgeTemplateJson,
  TEMPLATE_LIST,
  TemplateCreateBody,
  TemplateUpdateBody,
} from "../../../core/badges/mod.ts";
import { validationFailed } from "../../../core/errors/mod.ts";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  type TemplateView,
  templateAction,
  updateTemplate,
} from "../../../core/issuing/mod.ts";
import { IMAGE_MAX_BYTES } from "../../../core/organizations/mod.ts";
import { decodeImageDataUri, storeImage } from "../../obi/mod.ts";
import {
  bufferUpload,
  isMultipart,
  lingerUnreadBody,
  multipartBodies,
  readMultipartForm,
  type UploadSlots,
} from "../../uploads/mod.ts";
import { issuingContext } from "../badge_deps.ts";
import type { RestDeps } from "../deps.ts";
import { One, one } from "../envelope.ts";
import { guard } from "../guard.ts";
import { created, ERRORS, organizationOf, resourceRoutes } from "../route_kit.ts";

/** A 1 MiB image as base64 in a data URI, beside the other fields; or the same as a multipart file. */
const TEMPLATE_BODY_LIMIT = 2 * 1024 * 1024;

/** The file part `image` of a multipart body, kept off the keys the schema checks. */
const IMAGE_FILE = Symbol("image file");
/** Multipart text fields that carry JSON (`["a","b"]`, `true`); the others are plain text. */
const JSON_FIELDS = new Set(["skills", "alignments", "public", "allow_duplicate_badges"]);
/** Multipart text fields where an empty value means `null`, as an empty form input does. */
const NULLABLE_FIELDS = new Set(["image_url", "url", "vanity_slug", "criteria_url", "global_activity_url"]);

const IMAGE_DESCRIPTION =
  "Laurel addition: `image` sets the template's image, a PNG or SVG of at most 1 MiB judged by its content: a data URI in a JSON body, or a file part named `image` in a multipart/form-data body (whose other parts are the same fields as text; `skills`, `alignments`, `public` and `allow_duplicate_badges` as JSON, an empty value as null). Laurel stores it and `image_url` then gives its stable address, served with immutable cache headers. A refused image is a 422 naming the field `image`; `image: null` drops a stored image, and an `image_url` replaces it.";

/** What a creation's and an update's documentation add: the image and the multipart body. */
const WITH_IMAGE = { description: IMAGE_DESCRIPTION, consumes: ["application/json", "multipart/form-data"] };

/** Badge templates, scope `badge_templates`. */
export const badgeTemplateRoutes =
  (deps: RestDeps, origin: string, uploads: UploadSlots) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = guard(deps.authenticator, deps.clock, "badge_templates");
    const templates = resourceRoutes(app, origin, onRequest, "badge_templates/:badge_template_id", ["Badge templates"]);
    const { base, schema } = templates;
    const issuing = deps.badges.issuing;
    const json = (v: TemplateView) => badgeTemplateJson(v.template, v.owner, issuing.urls);

    // A multipart body becomes the JSON body's shape, so the same schema judges both. It is read
    // once the guard (on the request) has authenticated and allowed the caller, before validation.
    multipartBodies(plugin);
    // Refused as core refuses an image too large in a JSON body: a 422 naming the field.
    const imageTooLarge = () =>
      validationFailed("The image was refused", [{ field: "image", message: "is larger than 1 MiB" }]);
    app.addHook("onRequest", (request, reply, done) => {
      if (isMultipart(request)) lingerUnreadBody(request, reply);
      done();
    });
    app.addHook("preValidation", async (request, reply) => {
      if (!isMultipart(request)) return;
      const form = await readMultipartForm(request, reply, {
        slots: uploads,
        fileField: "image",
        maxFileBytes: IMAGE_MAX_BYTES,
        tooLarge: imageTooLarge,
        sink: bufferUpload,
      });
      const parsed: Record<string | symbol, unknown> = {};
      for (const [name, values] of form.fields) {
        const value = values.at(-1) ?? "";
        if (JSON_FIELDS.has(name)) {
          try {
            parsed[name] = JSON.parse(value);
          } catch {
            parsed[name] = value;
          }
        } else parsed[name] = NULLABLE_FIELDS.has(name) && value === "" ? null : value;
      }
      if (form.file) parsed[IMAGE_FILE] = form.file.content;
      request.body = parsed;
    });

    /** The image the body sends, stored: its name; `null` to drop the stored one; `undefined` to keep it. */
    const imageChange = async (body: unknown): Promise<TemplateImageChange> => {
      const fields = (body ?? {}) as Record<string | symbol, unknown>;
      const sent = fields[IMAGE_FILE] ?? fields.image;
      if (sent === undefined || sent === null) return sent as undefined | null;
      const bytes = sent instanceof Uint8Array ? sent : decodeImageDataUri(sent as string);
      return storeImage(deps.images, bytes, deps.clock());
    };

    app.post(base, {
      bodyLimit: TEMPLATE_BODY_LIMIT,
      ...templates.creating(
        "Create a badge template (a draft unless `state` is `active`)",
        TemplateCreateBody,
        BadgeTemplateJsonSchema,
        async (request, reply) => {
          const { organization_id } = request.params;
          const owner = await organizationOf(deps.organizations, organization_id);
          const image = (await imageChange(request.body)) ?? null;
          const view = await createTemplate(issuing, issuingContext(deps, request), owner, request.body, image);
          const location = `${deps.baseUrl}/organizations/${organization_id}/badge_templates/${view.template.id}`;
          return created(reply, json(view), location);
        },
        WITH_IMAGE,
      ),
    });

    templates.list(
      "List badge templates, newest first unless sorted",
      BadgeTemplateJsonSchema,
      TEMPLATE_LIST,
      (organizationId, query, req) => listTemplates(issuing, organizationId, query, req),
      json,
    );

    templates.get("Get a badge template", BadgeTemplateJsonSchema, async (organizationId, id) =>
      json(await getTemplate(issuing, organizationId, id)),
    );

    app.put(`${base}/:badge_template_id`, {
      bodyLimit: TEMPLATE_BODY_LIMIT,
      ...templates.changing(
        "Update a badge template; absent fields are kept, `state: active` activates a draft",
        TemplateUpdateBody,
        BadgeTemplateJsonSchema,
        async (request) => {
          const p = request.params;
          const body = request.body ?? {};
          const image = await imageChange(body);
          const ctx = issuingContext(deps, request);
          return one(json(await updateTemplate(issuing, ctx, p.organization_id, p.badge_template_id, body, image)));
        },
        WITH_IMAGE,
      ),
    });

    for (const action of ["archive", "unarchive"] as const) {
      app.put(`${base}/:badge_template_id/${action}`, {
        onRequest,
        schema: schema({
          summary: action === "archive" ? "Archive a badge template (it stops issuing)" : "Unarchive a badge template",
          params: templates.params,
          response: { 200: One(BadgeTemplateJsonSchema), ...ERRORS },
        }),
        handler: async (request) => {
          const p = request.params;
          const ctx = issuingContext(deps, request);
          return one(json(await templateAction(issuing, ctx, p.organization_id, p.badge_template_id, action)));
        },
      });
    }

    templates.remove("Delete a badge template that has issued no badges", (organizationId, id, request) =>
      deleteTemplate(issuing, issuingContext(deps, request), organizationId, id),
    );
  };
