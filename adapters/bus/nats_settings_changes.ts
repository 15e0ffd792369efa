import { WebhookSettingsChangeSchema } from "../../core/messages/mod.ts";
import type { BusLog } from "./checked_messages.ts";
import { broadcastJson, type Channel, type NatsConnection, subscribeChecked } from "./nats_connection.ts";

export const WEBHOOK_SETTINGS_CHANGES: Channel<typeof WebhookSettingsChangeSchema> = {
  subject: "laurel.webhook_settings_changes",
  schema: WebhookSettingsChangeSchema,
};

/**
 * A change to an organization's delivery settings (webhook_url, chosen kinds, signing secrets,
 * data services on one of its applications) spreads to every worker process over core NATS: each
 * drops the organization from its settings cache at once, so the next event is routed by the new
 * settings. A worker that missed the message reads them anew when its cache entry expires (1 s).
 */
export const natsSettingsChanges =
  (nc: NatsConnection) =>
  (organizationId: string): Promise<void> =>
    broadcastJson(nc, WEBHOOK_SETTINGS_CHANGES, { organization_id: organizationId });

export const subscribeSettingsChanges = (
  nc: NatsConnection,
  onChange: (organizationId: string) => void,
  log: BusLog,
): (() => void) => subscribeChecked(nc, WEBHOOK_SETTINGS_CHANGES, log, (body) => onChange(body.organization_id));
