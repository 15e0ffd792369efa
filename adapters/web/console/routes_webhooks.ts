import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validationFailed } from "../../../core/errors/mod.ts";
import {
  deliveryLog,
  getWebhookSettings,
  redeliverEvent,
  redeliverFailed,
  sendTestEvent,
  updateWebhookSettings,
  type WebhookSecret,
  webhookSecret,
} from "../../../core/webhooks/mod.ts";
import { field } from "../routes_public.ts";
import { doneNotice, sentValue } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import { askFirst, isConfirmed } from "./confirm_pages.ts";
import { consoleContext, memberPageRoute } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { fieldValues, tryForm } from "./form_fields.ts";
import { keepForOneView, stringsOf, takeOneView } from "./once_shown.ts";
import type { ConsoleGate } from "./routes_console.ts";
import { type WebhookForm, webhooksPage } from "./webhook_pages.ts";

const LOG_PAGE = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NOTICES: Record<string, string> = {
  saved: "Webhook settings saved.",
  saved_none:
    "Webhook settings saved, but no event kind is chosen: Laurel sends nothing to this address except test events. Tick “Every kind” or the kinds you want, and save again.",
  test: "Test event sent: it appears in the delivery log as soon as it is attempted.",
  redelivered: "Redelivery queued.",
  none_failed: "No failed delivery since that time: nothing to redeliver.",
  secret: "Here is the signing secret. Copy it now: it is not shown again when this page is reloaded.",
  rotated: "Secret rotated. The previous one keeps signing for 24 hours.",
};

const isShownSecret = stringsOf("secret", "previous", "previous_until");

/** The kinds the settings form sent: "Every kind" ticked wins over the single boxes. */
const sentKinds = (request: FastifyRequest): WebhookForm["event_types"] =>
  field(request, "all_kinds") === "on" ? "all" : fieldValues(request, "event_types");

/** Developers > Webhooks: the settings, secret and redelivery use cases the operator tools use too. */
export const webhookRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const base = "/console/:org/developers/webhooks";
  const settingsDeps = {
    organizations: deps.organizations,
    settings: deps.webhooks.settings,
    secrets: deps.secrets,
    crypto: deps.webhooks.crypto,
  };
  const ctx = () => consoleContext(kit, deps);

  const show: MemberPage<[extra?: { error?: string; form?: WebhookForm; since?: string; notice?: string }]> = async (
    request,
    reply,
    member,
    status,
    extra = {},
  ) => {
    const sent = sentValue(request.query, "after");
    const after = typeof sent === "string" && UUID.test(sent) ? sent.toLowerCase() : null;
    const [settings, log, target] = await Promise.all([
      getWebhookSettings(settingsDeps, member.organizationId, kit.deps.clock()),
      deliveryLog(deps.webhooks, member.organizationId, after, LOG_PAGE),
      deps.webhooks.targets.target(member.organizationId),
    ]);
    const shown = takeOneView(kit, deps.secrets, request, reply, member, "webhooks", "webhook_secret", isShownSecret);
    const secret: WebhookSecret | null = shown
      ? {
          secret: shown.secret,
          ...(shown.previous ? { previous_secret: shown.previous } : {}),
          ...(shown.previous_until ? { previous_secret_expires_at: shown.previous_until } : {}),
        }
      : null;
    return kit.page(
      reply,
      status,
      webhooksPage(kit.frame(request, reply, "Webhooks"), member, {
        settings,
        secret,
        dataServices: target.hasDataServicesApplication,
        log: { ...log, first: after === null },
        notice: extra.notice ?? doneNotice(NOTICES, request),
        error: extra.error ?? null,
        form: extra.form ?? null,
        since: extra.since ?? "",
      }),
    );
  };

  /** Runs a change; a refusal core explains is shown on the page, anything else goes to the error page. */
  const change =
    (work: (member: ConsoleMember, request: FastifyRequest) => Promise<string>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const member = await gate(request, reply, "developers.write");
      if (!member) return reply;
      return tryForm(
        async () => {
          const done = await work(member, request);
          return reply.redirect(`${consolePath(member.organizationId, "webhooks")}?done=${done}`, 303);
        },
        (error) =>
          show(request, reply, member, 422, {
            error,
            // The settings form comes back as sent; the other forms leave it as saved.
            ...(sentValue(request.body, "webhook_url") === undefined
              ? {}
              : { form: { webhook_url: field(request, "webhook_url"), event_types: sentKinds(request) } }),
            since: field(request, "since").slice(0, 32),
          }),
      );
    };

  app.get(base, memberPageRoute(gate, "developers.read", show));

  app.post(
    base,
    change(async (member, request) => {
      const url = field(request, "webhook_url").trim();
      const saved = await updateWebhookSettings(
        settingsDeps,
        kit.deps.clock(),
        member.organizationId,
        {
          webhook_url: url === "" ? null : url,
          event_types: sentKinds(request),
        },
        {
          allowedNetworks: deps.webhooks.allowedNetworks,
          audit: { by: member.by(request.ip), newId: deps.newId },
        },
      );
      await deps.webhooks.onSettingsChanged?.(member.organizationId);
      // Saved with an address and no kind: said plainly, since nothing will arrive there.
      return saved.webhook_url && saved.event_types !== "all" && saved.event_types.length === 0
        ? "saved_none"
        : "saved";
    }),
  );

  const secret = (rotate: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const member = await gate(request, reply, "developers.write");
    if (!member) return reply;
    if (rotate && !isConfirmed(request)) {
      const path = consolePath(member.organizationId, "webhooks");
      return askFirst(kit, request, reply, member, "webhooks", {
        question: "Rotate the webhook signing secret?",
        consequences: [
          "Deliveries are signed with a new secret from now on. The current one keeps signing beside it for 24 hours: update your receiver within that day, or it will refuse Laurel's deliveries.",
          "The new secret is shown once, on the next page.",
        ],
        action: `${path}/secret/rotate`,
        confirm: "Rotate secret",
        back: path,
      });
    }
    const value = await webhookSecret(settingsDeps, kit.deps.clock(), member.organizationId, {
      rotate,
      audit: { by: member.by(request.ip), newId: deps.newId },
    });
    await deps.webhooks.onSettingsChanged?.(member.organizationId);
    // The value goes to the page sealed, for one view: never in a URL, and a reload rotates nothing.
    keepForOneView(kit, deps.secrets, request, reply, member, "webhooks", "webhook_secret", {
      secret: value.secret,
      previous: value.previous_secret ?? "",
      previous_until: value.previous_secret_expires_at ?? "",
    });
    return reply.redirect(
      `${consolePath(member.organizationId, "webhooks")}?done=${rotate ? "rotated" : "secret"}`,
      303,
    );
  };
  // Revealing is a POST: it may create the secret, and the value stays out of URLs and history.
  app.post(`${base}/secret`, secret(false));
  app.post(`${base}/secret/rotate`, secret(true));

  app.post(
    `${base}/test`,
    change(async (member) => {
      await sendTestEvent(deps.webhooks, ctx(), member.organizationId);
      return "test";
    }),
  );

  app.post(
    `${base}/redeliver`,
    change(async (member, request) => {
      const eventId = field(request, "event_id");
      if (!UUID.test(eventId))
        throw validationFailed("Unknown event", [{ field: "event_id", message: "is not an event id" }]);
      await redeliverEvent(deps.webhooks, ctx(), member.organizationId, eventId.toLowerCase());
      return "redelivered";
    }),
  );

  app.post(
    `${base}/redeliver_failed`,
    change(async (member, request) => {
      // The form's datetime-local carries no zone: the page says it is UTC.
      const raw = field(request, "since").trim();
      const since = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(raw) ? `${raw}Z` : "invalid");
      if (Number.isNaN(since.getTime()))
        throw validationFailed("Invalid time", [{ field: "since", message: "must be a date and time" }]);
      const { redelivered } = await redeliverFailed(deps.webhooks, ctx(), member.organizationId, since);
      return redelivered > 0 ? "redelivered" : "none_failed";
    }),
  );
};
