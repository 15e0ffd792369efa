import { Type } from "typebox";
import { OPERATOR } from "../../core/audit/mod.ts";
import { notFound, validationFailed } from "../../core/errors/mod.ts";
import type { EventStore } from "../../core/events/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import {
  type Cidr,
  type DeliveryAdminStore,
  DeliveryStatusSchema,
  type DeliveryTargets,
  EventTypeSelectionSchema,
  getWebhookSettings,
  listAttempts,
  listDeliveries,
  redeliverEvent,
  redeliverFailed,
  setDataServices,
  updateWebhookSettings,
  WEBHOOK_URL_MAX_LENGTH,
  type WebhookCrypto,
  type WebhookSettingsStore,
  webhookSecret,
} from "../../core/webhooks/mod.ts";
import { adminProcedure, router, type TrpcDeps } from "./context.ts";
import { standard } from "./standard_schema.ts";

/** The webhook parts the internal tools reach. */
export interface WebhookAdminDeps {
  settings: WebhookSettingsStore;
  targets: DeliveryTargets;
  deliveries: DeliveryAdminStore;
  events: Pick<EventStore, "get">;
  crypto: Pick<WebhookCrypto, "newKey">;
  /** `WEBHOOK_ALLOWED_NETWORKS`, for validating a webhook_url written as an IP address. */
  allowedNetworks: readonly Cidr[];
  /** Called after a redelivery, so a scheduler in this process dispatches it without waiting. */
  onRedeliver?: () => void;
  /**
   * Called after an organization's delivery settings changed (webhook_url, kinds, signing secret,
   * data services), before the answer: workers drop the settings they cached.
   */
  onSettingsChanged?: (organizationId: string) => Promise<void>;
}

const Uuid = Type.String({ format: "uuid", pattern: "^[0-9a-fA-F-]{36}$" });
const Org = { organization_id: Uuid };
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 }));

const settingsDeps = (deps: TrpcDeps) => ({
  organizations: deps.organizations,
  settings: deps.webhooks.settings,
  secrets: deps.secrets,
  crypto: deps.webhooks.crypto,
});

const requireOrganization = async (deps: TrpcDeps, id: string): Promise<void> => {
  if (!(await deps.organizations.get(id))) throw notFound("Organization");
};

const operatorDeps = (deps: TrpcDeps) => ({
  deliveries: deps.webhooks.deliveries,
  events: deps.webhooks.events,
  targets: deps.webhooks.targets,
});

export const webhooksRouter = router({
  settings: adminProcedure
    .input(standard(Type.Object(Org, { additionalProperties: false })))
    .query(({ ctx, input }) => getWebhookSettings(settingsDeps(ctx.deps), input.organization_id, ctx.deps.clock())),

  /** Sets or clears (`null`) the webhook_url and chooses the kinds (`"all"` or a list). */
  update: adminProcedure
    .input(
      standard(
        Type.Object(
          {
            ...Org,
            webhook_url: Type.Optional(Type.Union([Type.String({ maxLength: WEBHOOK_URL_MAX_LENGTH }), Type.Null()])),
            event_types: Type.Optional(EventTypeSelectionSchema),
          },
          { additionalProperties: false },
        ),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const { organization_id, ...change } = input;
      const settings = await updateWebhookSettings(settingsDeps(ctx.deps), ctx.deps.clock(), organization_id, change, {
        allowedNetworks: ctx.deps.webhooks.allowedNetworks,
        audit: { by: OPERATOR, newId: ctx.deps.newId },
      });
      await ctx.deps.webhooks.onSettingsChanged?.(organization_id);
      return settings;
    }),

  /** The signing secret (created when there is none); `rotate` keeps the old one 24 hours. */
  secret: adminProcedure
    .input(standard(Type.Object({ ...Org, rotate: Type.Optional(Type.Boolean()) }, { additionalProperties: false })))
    .mutation(async ({ ctx, input }) => {
      const secret = await webhookSecret(settingsDeps(ctx.deps), ctx.deps.clock(), input.organization_id, {
        rotate: input.rotate === true,
        audit: { by: OPERATOR, newId: ctx.deps.newId },
      });
      await ctx.deps.webhooks.onSettingsChanged?.(input.organization_id);
      return secret;
    }),

  deliveries: adminProcedure
    .input(
      standard(
        Type.Object(
          { ...Org, event_id: Type.Optional(Uuid), status: Type.Optional(DeliveryStatusSchema), page: Page },
          { additionalProperties: false },
        ),
      ),
    )
    .query(async ({ ctx, input }) => {
      await requireOrganization(ctx.deps, input.organization_id);
      const req = pageRequest(input.page);
      const page = await listDeliveries(
        operatorDeps(ctx.deps),
        { organizationId: input.organization_id, eventId: input.event_id, status: input.status },
        req,
      );
      return { data: page.items, metadata: pageMetadata(req, page.items.length, page.total, (p) => `?page=${p}`) };
    }),

  /** Attempts of a delivery, an event, or the whole organization, newest first. */
  attempts: adminProcedure
    .input(
      standard(
        Type.Object(
          {
            ...Org,
            event_id: Type.Optional(Uuid),
            delivery_id: Type.Optional(Uuid),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
      ),
    )
    .query(async ({ ctx, input }) => {
      await requireOrganization(ctx.deps, input.organization_id);
      const data = await listAttempts(
        operatorDeps(ctx.deps),
        { organizationId: input.organization_id, eventId: input.event_id, deliveryId: input.delivery_id },
        input.limit ?? 200,
      );
      return { data };
    }),

  redeliver: adminProcedure
    .input(standard(Type.Object({ ...Org, event_id: Uuid }, { additionalProperties: false })))
    .mutation(async ({ ctx, input }) => {
      await requireOrganization(ctx.deps, input.organization_id);
      const delivery = await redeliverEvent(
        operatorDeps(ctx.deps),
        { now: ctx.deps.clock(), newId: ctx.deps.newId },
        input.organization_id,
        input.event_id,
      );
      ctx.deps.webhooks.onRedeliver?.();
      return delivery;
    }),

  /** Every event whose latest delivery failed at or after `since` (ISO 8601) is delivered again. */
  redeliverFailed: adminProcedure
    .input(standard(Type.Object({ ...Org, since: Type.String({ maxLength: 64 }) }, { additionalProperties: false })))
    .mutation(async ({ ctx, input }) => {
      const since = new Date(input.since);
      if (!/^\d{4}-\d{2}-\d{2}/.test(input.since) || Number.isNaN(since.getTime())) {
        throw validationFailed("Invalid time", [{ field: "since", message: "must be an ISO 8601 date or date-time" }]);
      }
      await requireOrganization(ctx.deps, input.organization_id);
      const result = await redeliverFailed(
        operatorDeps(ctx.deps),
        { now: ctx.deps.clock(), newId: ctx.deps.newId },
        input.organization_id,
        since,
      );
      ctx.deps.webhooks.onRedeliver?.();
      return result;
    }),
});

export const oauthApplicationsRouter = router({
  /** Enables or disables data services on an OAuth application (a condition of webhook delivery). */
  setDataServices: adminProcedure
    .input(
      standard(
        Type.Object(
          { ...Org, application_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), enabled: Type.Boolean() },
          { additionalProperties: false },
        ),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const app = await setDataServices(
        { apps: ctx.deps.apps },
        { now: ctx.deps.clock(), newId: ctx.deps.newId },
        input.organization_id,
        input.application_id,
        input.enabled,
      );
      await ctx.deps.webhooks.onSettingsChanged?.(input.organization_id);
      return app;
    }),
});
