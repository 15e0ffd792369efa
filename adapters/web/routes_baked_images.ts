import type { FastifyInstance } from "fastify";
import { notFound } from "../../core/errors/mod.ts";
import { bakedImageVisible } from "../../core/obi/mod.ts";
import { type BadgeImageBaker, IMAGE_CONTENT_TYPE, type ImageType } from "../obi/mod.ts";
import { uuidParam } from "./routes_public.ts";
import type { WebKit } from "./web_deps.ts";

/**
 * "Download image": the badge's image with its hosted OB 2.0 assertion baked in, with
 * `?record=ob3` its OB 3.0 credential (VC-JWT), with `?record=ob3_ldp` that credential as JSON-LD
 * with its Data Integrity proof. Offered where the records are served, and a private badge's
 * to its earner; a revoked badge has none (404, like any badge the viewer may not see).
 */
export const bakedImageRoutes = (kit: WebKit, baker: BadgeImageBaker) => async (app: FastifyInstance) => {
  for (const type of ["png", "svg"] as const satisfies ImageType[]) {
    app.get<{ Querystring: { record?: string } }>(`/badges/:id/image.${type}`, async (request, reply) => {
      const id = uuidParam(request);
      const view = await kit.deps.earners.issuing.store.getBadge(null, id);
      if (!view || !bakedImageVisible(view.badge, request.earner?.user.id ?? null)) throw notFound("Badge image");
      const { record } = request.query;
      const choice = record === "ob3" || record === "ob3_ldp" ? record : "ob2";
      const baked = await baker.bake(view, type, choice);
      if (!baked) throw notFound("Badge image");
      const name = `badge-${id}${choice === "ob2" ? "" : `-${choice.replace("_", "-")}`}.${type}`;
      return (
        reply
          // Baked for this badge as it is now: a revocation or a privacy switch must not be outlived by a copy.
          .header("cache-control", "private, no-store")
          .header("content-disposition", `attachment; filename="${name}"`)
          .header("x-content-type-options", "nosniff")
          // An SVG opened on its own runs nothing and loads nothing, as the stored images are served.
          .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .type(IMAGE_CONTENT_TYPE[type])
          .send(baked)
      );
    });
  }
};
