import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type EarnerAccount,
  exportForLink,
  removeEmail,
  requestExport,
  requestLink,
  updateName,
  updateProfile,
  walletBadges,
} from "../../core/earners/mod.ts";
import { validationFailed } from "../../core/errors/mod.ts";
import { bakedImageVisible } from "../../core/obi/mod.ts";
import { walletPathways } from "../../core/pathways/mod.ts";
import { walletRecommendations } from "../../core/recommendations/mod.ts";
import { isEmailAddress } from "../../core/shared/mod.ts";
import { visitConnections } from "../../core/workforce/mod.ts";
import { formProblem } from "./console/form_fields.ts";
import { EXPORT_CHUNK_BYTES } from "./earner_export.ts";
import { connectionNotice, employersSection } from "./employer_pages.ts";
import { type ExternalForm, externalBadgeRoutes, externalNotice, externalSection } from "./external_badge_pages.ts";
import { messagePage } from "./layout.ts";
import { accountPage, walletPage } from "./pages/earner_pages.ts";
import { walletPathwaysSection } from "./pathway_pages.ts";
import { recommendationNotice, recommendationsSection, recommendationWalletRoutes } from "./recommendation_pages.ts";
import { field, noticeOf, uuidParam } from "./routes_public.ts";
import { doneNotice } from "./sent.ts";
import type { WebKit } from "./web_deps.ts";

const ACCOUNT_NOTICES: Record<string, string> = {
  name: "Name saved.",
  profile: "Profile saved.",
  email_sent: "We sent a confirmation link to that address. Open it to add the address.",
  merge_sent: "We sent a merge link to that address. Open it in this browser to merge the accounts.",
  email_removed: "Address removed.",
  email_confirmed: "Address confirmed.",
  merged: "Accounts merged: the other account's badges and addresses are now here.",
  export_requested:
    "We are putting your badges and profile together. We will e-mail you a download link when the file is ready.",
};

const CHUNKS_PER_READ = 16;

/** Writes `bytes` to the response; resolves once the socket has taken them (the buffer is free again). */
const flushed = (res: ServerResponse, bytes: Uint8Array): Promise<void> =>
  new Promise((resolve, reject) => {
    const gone = (): void => reject(new Error("the client closed the connection"));
    res.once("close", gone);
    res.write(bytes, (err) => {
      res.off("close", gone);
      if (err) reject(err);
      else resolve();
    });
  });

export const accountRoutes = (kit: WebKit) => async (app: FastifyInstance) => {
  const { deps, urls } = kit;

  /** The signed-in account, or a redirect to sign in that comes back here. */
  const signedIn = (request: FastifyRequest, reply: FastifyReply): EarnerAccount | null => {
    if (request.earner) return request.earner;
    const path = request.method === "GET" ? request.url : "/account";
    void reply.redirect(`/sign_in?next=${encodeURIComponent(path)}`, 303);
    return null;
  };

  // The site's root: the wallet for an earner, the sign-in form for anyone else.
  app.get("/", async (request, reply) => reply.redirect(request.earner ? "/wallet" : "/sign_in", 303));

  const showWallet = async (request: FastifyRequest, reply: FastifyReply, status: number, form: ExternalForm) => {
    const account = request.earner as EarnerAccount;
    const connections = await visitConnections(deps.connections, deps.context(), account.user.id);
    const views = await walletBadges(deps.earners, account.user.id);
    const baker = deps.bakedImages;
    const badges = await Promise.all(
      views.map(async (view) => ({
        view,
        downloads: baker && bakedImageVisible(view.badge, account.user.id) ? await baker.types(view) : [],
      })),
    );
    const frame = { ...kit.frame(request, reply, "Your badges"), noindex: true };
    const notice =
      noticeOf(request) ?? connectionNotice(request) ?? externalNotice(request) ?? recommendationNotice(request);
    const employers = employersSection(frame, connections);
    const external = deps.externalBadges
      ? externalSection(frame, await deps.externalBadges.store.listForUser(account.user.id), form)
      : null;
    const recommendations = deps.recommendations
      ? recommendationsSection(frame, await walletRecommendations(deps.recommendations, account.user.id), urls)
      : null;
    const pathways = deps.pathways
      ? walletPathwaysSection(await walletPathways(deps.pathways, account.user.id), urls)
      : null;
    return kit.page(
      reply,
      status,
      walletPage(frame, { badges, now: deps.clock(), notice, employers, external, recommendations, pathways }, urls),
    );
  };

  app.get("/wallet", async (request, reply) => {
    if (!signedIn(request, reply)) return reply;
    return showWallet(request, reply, 200, { error: null, url: "", credential: "" });
  });
  if (deps.externalBadges) await app.register(externalBadgeRoutes(kit, deps.externalBadges, showWallet));
  if (deps.recommendations) await app.register(recommendationWalletRoutes(kit, deps.recommendations));

  const showAccount = (request: FastifyRequest, reply: FastifyReply, status: number, error: string | null) => {
    const notice = doneNotice(ACCOUNT_NOTICES, request);
    const exports = deps.exports !== undefined;
    return kit.page(
      reply,
      status,
      accountPage(kit.frame(request, reply, "Your account"), { notice, error, exports }, urls),
    );
  };

  app.get("/account", async (request, reply) => {
    if (!signedIn(request, reply)) return reply;
    return showAccount(request, reply, 200, null);
  });

  /** Runs a form's use case; a refusal re-renders the account page with core's message. */
  const form =
    (work: (account: EarnerAccount, request: FastifyRequest) => Promise<string>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const account = signedIn(request, reply);
      if (!account) return reply;
      try {
        const done = await work(account, request);
        return reply.redirect(`/account?done=${done}`, 303);
      } catch (err) {
        const problem = formProblem(err);
        if (problem === null) throw err;
        return showAccount(request, reply, 422, problem);
      }
    };

  const mailLink = async (purpose: "add_email" | "merge", account: EarnerAccount, request: FastifyRequest) => {
    const email = field(request, "email").trim();
    if (!isEmailAddress(email)) {
      throw validationFailed("Check the address", [{ field: "email", message: "is not an e-mail address" }]);
    }
    const { token } = await requestLink(deps.earners, deps.context(), {
      purpose,
      email,
      userId: account.user.id,
      client: request.ip,
    });
    const name = `${account.user.first_name} ${account.user.last_name}`.trim();
    const primary = account.user.emails.find((e) => e.confirmed) ?? account.user.emails[0];
    await kit.mail.sendLink(purpose, email, token, { name, email: primary?.email ?? "" });
  };

  app.post(
    "/account/name",
    form(async (account, request) => {
      await updateName(deps.earners, deps.clock(), account, {
        first_name: field(request, "first_name"),
        last_name: field(request, "last_name"),
      });
      return "name";
    }),
  );
  app.post(
    "/account/profile",
    form(async (account, request) => {
      await updateProfile(deps.earners, deps.clock(), account, {
        public_profile: field(request, "public_profile") === "on",
        vanity_name: field(request, "vanity_name"),
      });
      return "profile";
    }),
  );
  app.post(
    "/account/emails",
    form(async (account, request) => {
      await mailLink("add_email", account, request);
      return "email_sent";
    }),
  );
  app.post(
    "/account/emails/remove",
    form(async (account, request) => {
      await removeEmail(deps.earners, deps.context(), account, field(request, "email"));
      return "email_removed";
    }),
  );
  const exports = deps.exports;
  if (exports) {
    const { store } = exports;
    app.post(
      "/account/export",
      form(async (account) => {
        await requestExport(exports, deps.context(), account.user.id);
        return "export_requested";
      }),
    );
    // The mailed link: its token is the key (no session needed, as from another device); the file
    // streams from its stored chunks.
    app.get<{ Querystring: { token?: unknown } }>("/account/export/:id", async (request, reply) => {
      const id = uuidParam(request);
      const token = request.query.token;
      const found = await exportForLink(
        exports,
        id,
        typeof token === "string" ? token.slice(0, 200) : "",
        deps.clock(),
      );
      if (found === "expired") {
        const frame = { ...kit.frame(request, reply, "Link expired"), noindex: true };
        return kit.page(
          reply,
          410,
          messagePage(frame, "This download link has expired", [
            "Links to an export work for 7 days. Ask for a new export on your account page.",
          ]),
        );
      }
      // One buffer per download, filled from the database a few chunks at a time and filled again
      // only once the socket has taken its bytes: the file passes through it, so the process
      // allocates little beyond the database socket's reads, whatever the file's size. The first
      // read comes before the answer starts, so a database failure still gets an error answer.
      const buffer = Buffer.allocUnsafe(CHUNKS_PER_READ * EXPORT_CHUNK_BYTES);
      const read = (seq: number) => store.readChunks(id, seq, CHUNKS_PER_READ, buffer);
      let batch = await read(0);
      const day = found.created_at.toISOString().slice(0, 10);
      reply.hijack();
      const res = reply.raw;
      // What hooks set on the reply goes along (the raw response has the security headers already).
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) res.setHeader(name, value);
      }
      res.writeHead(200, {
        "cache-control": "private, no-store",
        "content-disposition": `attachment; filename="laurel-export-${day}.zip"`,
        "content-length": String(found.size_bytes ?? 0),
        "content-type": "application/zip",
      });
      try {
        for (let seq = 0; request.method !== "HEAD"; ) {
          await flushed(res, batch.bytes);
          if (batch.chunks < CHUNKS_PER_READ) break;
          seq += CHUNKS_PER_READ;
          batch = await read(seq);
        }
        res.end();
      } catch (err) {
        // Headers are sent: the client sees the file cut short.
        request.log.warn({ err }, "export download ended early");
        res.destroy();
      }
    });
  }
  app.post(
    "/account/merge",
    form(async (account, request) => {
      await mailLink("merge", account, request);
      return "merge_sent";
    }),
  );
};
