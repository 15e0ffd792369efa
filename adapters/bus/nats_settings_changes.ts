import type { NatsConnection } from "./nats_connection.ts";

export const WEBHOOK_SETTINGS_SUBJECT = "laurel.webhook_settings_changes";

/**
 * A change to an organization's delivery settings (webhook_url, chosen kinds, signing secrets,
 * data services on one of its applications) spreads to every worker process over core NATS: each
 * drops the organization from its settings cache at once, so the next event is routed by the new
 * settings. A worker that missed the message reads them anew when its cache entry expires (1 s).
 */
export const natsSettingsChanges =
  (nc: NatsConnection) =>
  async (organizationId: string): Promise<void> => {
    nc.publish(WEBHOOK_SETTINGS_SUBJECT, JSON.stringify({ organization_id: organizationId }));
    // Flushed before the tool's answer goes out: workers have dropped the old settings when it returns.
    await nc.flush();
  };

export const subscribeSettingsChanges = (
  nc: NatsConnection,
  onChange: (organizationId: string) => void,
): (() => void) => {
  const sub = nc.subscribe(WEBHOOK_SETTINGS_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      try {
        const body = msg.json<{ organization_id?: unknown }>();
        if (typeof body?.organization_id === "string") onChange(body.organization_id);
      } catch {
        // a malformed message from elsewhere on the bus is ignored
      }
    },
  });
  return () => sub.unsubscribe();
};
