import { broadcastJson, type NatsConnection, subscribeJson } from "./nats_connection.ts";

export const WEBHOOK_SETTINGS_SUBJECT = "laurel.webhook_settings_changes";

/**
 * A change to an organization's delivery settings (webhook_url, chosen kinds, signing secrets,
 * data services on one of its applications) spreads to every worker process over core NATS: each
 * drops the organization from its settings cache at once, so the next event is routed by the new
 * settings. A worker that missed the message reads them anew when its cache entry expires (1 s).
 */
export const natsSettingsChanges =
  (nc: NatsConnection) =>
  (organizationId: string): Promise<void> =>
    broadcastJson(nc, WEBHOOK_SETTINGS_SUBJECT, { organization_id: organizationId });

export const subscribeSettingsChanges = (nc: NatsConnection, onChange: (organizationId: string) => void) =>
  subscribeJson(nc, WEBHOOK_SETTINGS_SUBJECT, (body) => {
    const id = (body as { organization_id?: unknown } | null)?.organization_id;
    if (typeof id === "string") onChange(id);
  });
