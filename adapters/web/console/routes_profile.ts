import type { FastifyInstance } from "fastify";
import { badRequest, fail, isCoreError, notFound, settle, validationFailed } from "../../../core/errors/mod.ts";
import { updateOrganizationProfile } from "../../../core/members/mod.ts";
import { checkProfile, IMAGE_MAX_BYTES, type ProfileInput } from "../../../core/organizations/mod.ts";
import { storeImage } from "../../obi/mod.ts";
import { bufferUpload } from "../../uploads/mod.ts";
import { pageAnswer } from "../errors.ts";
import { field } from "../routes_public.ts";
import { doneNotice } from "../sent.ts";
import { readUploadForm, UPLOAD_PAGE_MAX_BYTES, UPLOAD_ROUTE } from "../upload_forms.ts";
import type { WebKit } from "../web_deps.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { formProblem, tryForm } from "./form_fields.ts";
import { profilePage } from "./other_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";

const NOTICES: Record<string, string> = { saved: "Profile saved.", image: "Image saved." };

/** `images/<sha256>.<png|svg>`: the stable, content-addressed address of a stored image. */
const IMAGE_NAME = /^([0-9a-f]{64})\.(png|svg)$/;

export const profileRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const base = "/console/:org/profile";
  const ctx = () => consoleContext(kit, deps);

  const show: MemberPage<[error: string | null, form?: ProfileInput | null]> = async (
    request,
    reply,
    member,
    status,
    error,
    form = null,
  ) => {
    const org = await deps.organizations.get(member.organizationId);
    if (!org) throw notFound("Organization");
    return kit.page(
      reply,
      status,
      profilePage(kit.frame(request, reply, "Profile"), member, org, {
        publicPage: kit.urls.organizationPage(org.id),
        notice: doneNotice(NOTICES, request),
        error,
        form,
      }),
    );
  };

  app.get(base, memberPageRoute(gate, "profile.read", show, null));

  app.post(base, async (request, reply) => {
    const member = await gate(request, reply, "profile.update");
    if (!member) return reply;
    const form = {
      name: field(request, "name"),
      description: field(request, "description"),
      email: field(request, "email"),
      website_url: field(request, "website_url"),
    };
    return tryForm(
      async () => {
        const errors = checkProfile(form);
        if (errors.length > 0) throw validationFailed("Check the profile", errors);
        await updateOrganizationProfile(deps.members, ctx(), member.actor, request.ip, member.organizationId, {
          name: form.name.trim(),
          description: form.description.trim() === "" ? null : form.description,
          email: form.email.trim(),
          website_url: form.website_url.trim() === "" ? null : form.website_url.trim(),
        });
        deps.onOrganizationChanged?.(member.organizationId);
        return reply.redirect(`${consolePath(member.organizationId, "profile")}?done=saved`, 303);
      },
      (error) => show(request, reply, member, 422, error, form),
    );
  });

  // The image form is multipart, read as the template forms and the API read theirs.
  app.post(`${base}/image`, UPLOAD_ROUTE, async (request, reply) => {
    const member = await gate(request, reply, "profile.update");
    if (!member) return reply;
    const form = await settle(() =>
      readUploadForm(kit, request, reply, {
        fileField: "image",
        maxFileBytes: IMAGE_MAX_BYTES,
        tooLarge: () =>
          validationFailed("The image was refused", [{ field: "image", message: "is larger than 1 MiB" }]),
        sink: bufferUpload,
        // Read to its end, so the page saying why reaches the browser while it is still sending.
        dropOversizedFile: { maxBodyBytes: UPLOAD_PAGE_MAX_BYTES },
      }),
    );
    const file = form.ok ? form.value.file : null;
    const dropped = form.ok ? form.value.dropped : undefined;
    const stored = !form.ok
      ? form
      : isCoreError(dropped)
        ? fail(dropped)
        : file && file.content.length > 0
          ? await settle(() => storeImage(deps.images, file.content, kit.deps.clock()))
          : fail(badRequest("Choose an image file"));
    if (!stored.ok) {
      const error = formProblem(stored.error) ?? stored.error.message;
      return show(request, reply, member, pageAnswer(stored.error).status, `Image: ${error}`);
    }
    await updateOrganizationProfile(deps.members, ctx(), member.actor, request.ip, member.organizationId, {
      image_url: `${kit.urls.publicUrl}/images/${stored.value}`,
    });
    deps.onOrganizationChanged?.(member.organizationId);
    return reply.redirect(`${consolePath(member.organizationId, "profile")}?done=image`, 303);
  });

  // Public, and never changing: the name is the content's hash.
  app.get<{ Params: { name?: string } }>("/images/:name", async (request, reply) => {
    const m = IMAGE_NAME.exec(request.params.name ?? "");
    const image = m ? await deps.images.store.get(m[1] as string) : null;
    if (!image || !m || (m[2] === "svg") !== (image.contentType === "image/svg+xml")) throw notFound("Image");
    return (
      reply
        .header("cache-control", "public, max-age=31536000, immutable")
        .header("x-content-type-options", "nosniff")
        // Shown by other sites and by mail read in a browser: any origin may embed it.
        .header("cross-origin-resource-policy", "cross-origin")
        // An SVG opened on its own runs nothing and loads nothing, whatever got past the check.
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .type(image.contentType)
        .send(image.bytes)
    );
  });
};
