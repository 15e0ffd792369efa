import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import type { EarnerAccount } from "../../core/earners/mod.ts";
import { CoreError, isCoreError } from "../../core/errors/mod.ts";
import {
  addExternalBadge,
  type BakedUpload,
  bakedBadgeInput,
  type ExternalBadgeDeps,
  type ExternalBadgeOwner,
  type ExternalBadgeReason,
  type ExternalBadgeRecord,
  MAX_BAKED_IMAGE_BYTES,
  recheckExternalBadge,
  removeExternalBadge,
} from "../../core/workforce/mod.ts";
import { readBaked } from "../obi/mod.ts";
import { bufferUpload } from "../uploads/mod.ts";
import { pageAnswer } from "./errors.ts";
import { html } from "./html.ts";
import { csrfField, type Frame } from "./layout.ts";
import { field, uuidParam } from "./routes_public.ts";
import { doneNotice } from "./sent.ts";
import { readUploadForm, UPLOAD_PAGE_MAX_BYTES, UPLOAD_ROUTE } from "./upload_forms.ts";
import type { WebKit } from "./web_deps.ts";

/** Each reason in the earner's words: what went wrong and, where they can, what to do. */
const REASON_TEXT: Record<ExternalBadgeReason, string> = {
  unreachable: "Its address did not answer. We will try again tomorrow.",
  blocked_address: "Its address points into a private network, which Laurel does not visit.",
  not_found: "Nothing was found at its address.",
  malformed: "What its address returned is not an Open Badges record.",
  id_mismatch: "The record names an address on another site than its issuer's own.",
  revoked: "Its issuer has revoked it.",
  expired: "It has expired.",
  not_yet_valid: "It is not valid yet.",
  recipient_mismatch: "It was issued to an address that is not a confirmed address of your account.",
  badge_class_unresolved: "Its badge description could not be loaded.",
  issuer_unresolved: "Its issuer's profile could not be loaded.",
  key_unresolved: "Its issuer's public key could not be found on the issuer's own site.",
  signature_invalid: "Its signature does not match its issuer's key.",
};

export const reasonText = (reason: ExternalBadgeReason | null): string => (reason ? REASON_TEXT[reason] : "");

const NOTICES: Record<string, string> = {
  external_added: "Badge added and verified: your connected employers see it.",
  external_unverified: "Badge added, but it could not be verified; see why below.",
  external_removed: "Badge removed.",
  external_checked: "Checked again.",
};

/** The wallet's notice after an external badge action, if that is what `done` names. */
export const externalNotice = (request: FastifyRequest): string | null => doneNotice(NOTICES, request);

/** What the add form shows again after a refusal. */
export interface ExternalForm {
  error: string | null;
  url: string;
  credential: string;
}

const button = (frame: Frame, id: string, action: string, label: string, cls: string): VNode =>
  html`<form method="post" action=${`/wallet/external_badges/${id}/${action}`} class="inline">${csrfField(frame.csrf)}
    <button type="submit" class=${cls}>${label}</button></form>`;

const dateText = (d: Date | null): string | null => (d ? d.toISOString().slice(0, 10) : null);

const item = (frame: Frame, b: ExternalBadgeRecord): VNode => {
  const d = b.details;
  const ok = b.verification_status === "validated";
  const issued = dateText(d.issued_at);
  const expires = dateText(d.expires_at);
  return html`<li class="tile card" data-external-badge=${b.id}>
    ${d.image_url ? html`<img src=${d.image_url} alt="" width="72" height="72" loading="lazy" />` : null}
    <h3>${d.name}</h3>
    ${ok && d.issuer_origin ? html`<p class="small" data-issuer-origin>Issuer verified: <strong>${d.issuer_origin}</strong></p>` : null}
    <p class="small" data-claimed-issuer>Issuer named in the badge (not verified): ${d.issuer_name}${d.issuer_url ? ` (${d.issuer_url})` : ""}</p>
    ${issued || expires ? html`<p class="small">${[issued ? `Issued ${issued}` : "", expires ? `expires ${expires}` : ""].filter((s) => s).join(" · ")}</p>` : null}
    <p class=${ok ? "status ok" : "status warn"} role="status">${ok ? "Verified" : `Not verified: ${reasonText(b.verification_reason)}`}
      <span class="small"> (checked ${b.verified_at.toISOString().slice(0, 16).replace("T", " ")} UTC)</span></p>
    ${b.url ? html`<p class="small"><a href=${b.url} rel="nofollow noopener">Its record</a></p>` : null}
    <div class="actions">${button(frame, b.id, "check", "Check again", "secondary")}${button(frame, b.id, "remove", "Remove", "danger")}</div>
  </li>`;
};

/** The wallet's section on badges from other issuers: the list and the form to add one. */
export const externalSection = (frame: Frame, badges: ExternalBadgeRecord[], form: ExternalForm): VNode =>
  html`<section class="card" id="external" aria-labelledby="external-h">
    <h2 id="external-h">Badges from other issuers</h2>
    <p class="small">Add an Open Badges badge another issuer gave you. Laurel checks it with its issuer (again every day), and the employers you are connected to see it with the result.</p>
    ${badges.length > 0 ? html`<ul class="grid wallet external">${badges.map((b) => item(frame, b))}</ul>` : null}
    <h3>Add a badge</h3>
    ${form.error ? html`<p class="status bad" role="alert">${form.error}</p>` : null}
    <form method="post" action="/wallet/external_badges" class="stack">${csrfField(frame.csrf)}
      <label for="external-url">Address of its Open Badges 2.0 assertion</label>
      <input id="external-url" name="url" type="url" maxlength="2048" placeholder="https://issuer.example/assertions/123" value=${form.url} />
      <label for="external-credential">or paste an Open Badges 3.0 credential (a VC-JWT, or its JSON with a Data Integrity proof)</label>
      <textarea id="external-credential" name="credential" rows="3" maxlength="12000" spellcheck="false">${form.credential}</textarea>
      <button type="submit">Add badge</button>
    </form>
    <h3 id="external-image-h" class="form-gap">Or add it from its image</h3>
    <form method="post" action="/wallet/external_badges/image" enctype="multipart/form-data" class="stack" aria-labelledby="external-image-h">${csrfField(frame.csrf)}
      <label for="external-image">A baked badge image: PNG or SVG carrying its Open Badges 2.0 assertion or 3.0 credential, at most ${MAX_BAKED_IMAGE_BYTES / 1024 / 1024} MiB</label>
      <input id="external-image" name="image" type="file" accept="image/png,image/svg+xml,.png,.svg" required data-max-bytes=${MAX_BAKED_IMAGE_BYTES} />
      <button type="submit">Add badge from image</button>
    </form>
  </section>`;

export const ownerOf = (account: EarnerAccount): ExternalBadgeOwner => ({
  userId: account.user.id,
  confirmedEmails: account.user.emails.filter((e) => e.confirmed).map((e) => e.email),
});

/**
 * The earner adds, checks again and removes external badges. `showWallet` renders the wallet with
 * a refused form (422), so what was typed is not lost.
 */
export const externalBadgeRoutes =
  (
    kit: WebKit,
    deps: ExternalBadgeDeps,
    showWallet: (request: FastifyRequest, reply: FastifyReply, status: number, form: ExternalForm) => Promise<unknown>,
  ) =>
  async (app: FastifyInstance) => {
    const context = () => {
      const ctx = kit.deps.context();
      return { now: ctx.now, newId: ctx.newId, newEventId: ctx.newEventId, urls: kit.deps.earners.issuing.urls };
    };
    const signIn = (reply: FastifyReply) => reply.redirect("/sign_in?next=%2Fwallet", 303);
    /** A refusal the earner can act on: the wallet again, with why (422, or 429 past the hour's checks). */
    const refusal = (err: unknown): { status: number; message: string } => {
      if (isCoreError(err) && (err.code === "validation_failed" || err.code === "rate_limited")) {
        return { status: pageAnswer(err).status, message: err.message };
      }
      throw err;
    };

    app.post("/wallet/external_badges", async (request, reply) => {
      if (!request.earner) return signIn(reply);
      const form = { url: field(request, "url"), credential: field(request, "credential") };
      try {
        const added = await addExternalBadge(deps, context(), ownerOf(request.earner), form);
        const done = added.verification_status === "validated" ? "external_added" : "external_unverified";
        return reply.redirect(`/wallet?done=${done}#external`, 303);
      } catch (err) {
        const { status, message } = refusal(err);
        return showWallet(request, reply, status, { error: message, ...form });
      }
    });
    // The image upload is multipart, read as the console's image form is. A file just too large
    // is refused on the wallet with the reason rather than by a bare 413.
    app.post("/wallet/external_badges/image", UPLOAD_ROUTE, async (request, reply) => {
      if (!request.earner) return signIn(reply);
      const owner = ownerOf(request.earner);
      try {
        const form = await readUploadForm(kit, request, reply, {
          fileField: "image",
          maxFileBytes: MAX_BAKED_IMAGE_BYTES,
          tooLarge: () => new CoreError("payload_too_large", "The image is too large"),
          sink: bufferUpload,
          dropOversizedFile: { maxBodyBytes: UPLOAD_PAGE_MAX_BYTES },
        })
          .then((read) => (read.dropped ? ("too_large" as const) : read))
          .catch((err: unknown) => {
            if (isCoreError(err) && err.code === "payload_too_large") return "too_large" as const;
            throw err;
          });
        const image = form === "too_large" ? null : form.file?.content;
        const upload: BakedUpload =
          form === "too_large" ? "too_large" : !image?.length ? "not_an_image" : readBaked(image);
        const added = await addExternalBadge(deps, context(), owner, bakedBadgeInput(upload));
        const done = added.verification_status === "validated" ? "external_added" : "external_unverified";
        return reply.redirect(`/wallet?done=${done}#external`, 303);
      } catch (err) {
        const { status, message } = refusal(err);
        return showWallet(request, reply, status, { error: message, url: "", credential: "" });
      }
    });
    app.post("/wallet/external_badges/:id/remove", async (request, reply) => {
      const id = uuidParam(request);
      if (!request.earner) return signIn(reply);
      await removeExternalBadge(deps.store, context(), request.earner.user.id, id);
      return reply.redirect("/wallet?done=external_removed#external", 303);
    });
    app.post("/wallet/external_badges/:id/check", async (request, reply) => {
      const id = uuidParam(request);
      if (!request.earner) return signIn(reply);
      try {
        await recheckExternalBadge(deps, context(), ownerOf(request.earner), id);
      } catch (err) {
        const { status, message } = refusal(err);
        return showWallet(request, reply, status, { error: message, url: "", credential: "" });
      }
      return reply.redirect("/wallet?done=external_checked#external", 303);
    });
  };
