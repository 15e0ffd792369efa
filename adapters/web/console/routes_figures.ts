import type { FastifyInstance } from "fastify";
import { figuresCsv, isoWeekOf, readFigures } from "../../../core/issuing/mod.ts";
import type { WebKit } from "../web_deps.ts";
import type { ConsoleDeps } from "./console_deps.ts";
import { figuresPage } from "./figure_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";

/**
 * The figures behind the dashboard: acceptance rate, median time to accept, per template and per
 * ISO week, as a page and as a CSV download. Every role that reads badges reads them.
 */
export const figureRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const b = deps.badges;

  app.get("/console/:org/figures", async (request, reply) => {
    const member = await gate(request, reply, "badges.read");
    if (!member) return reply;
    const figures = await readFigures(b.figures, kit.deps.clock(), member.organizationId);
    return kit.page(reply, 200, figuresPage(kit.frame(request, reply, "Figures"), member, figures));
  });

  app.get("/console/:org/figures.csv", async (request, reply) => {
    const member = await gate(request, reply, "badges.read");
    if (!member) return reply;
    const now = kit.deps.clock();
    const figures = await readFigures(b.figures, now, member.organizationId);
    const slug =
      member.organizationName
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40) || "organization";
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header(
        "content-disposition",
        `attachment; filename="laurel-figures-${slug}-${now.toISOString().slice(0, 10)}-${isoWeekOf(now)}.csv"`,
      )
      .header("cache-control", "no-store")
      .send(figuresCsv(figures));
  });
};
