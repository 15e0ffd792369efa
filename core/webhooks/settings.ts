import { type AuditBy, auditRecord, OPERATOR } from "../audit/mod.ts";
import type { OAuthApplicationStore, OrganizationStore, SecretBox } from "../credentials/mod.ts";
import { type FieldError, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { EVENT_TYPES } from "../events/mod.ts";
import { isoMillis } from "../shared/mod.ts";
import type { Cidr } from "./addresses.ts";
import type { WebhookCrypto, WebhookSettingsStore } from "./ports.ts";
import type { WebhookSettingsRecord } from "./records.ts";
import type { DataServicesSetting, WebhookSecret, WebhookSettings, WebhookSettingsInput } from "./shapes.ts";
import { activeSecrets, formatWebhookSecret, rotateSecrets } from "./signing.ts";
import { normalizeEventTypes } from "./subscription.ts";
import { validateWebhookUrl } from "./url.ts";

export interface WebhookSettingsDeps {
  organizations: Pick<OrganizationStore, "get">;
  settings: WebhookSettingsStore;
  secrets: Pick<SecretBox, "seal" | "open">;
  crypto: Pick<WebhookCrypto, "newKey">;
}

/** Who changes a setting, for the audit log, and the id source of its row. */
export interface SettingsAudit {
  by: AuditBy;
  newId: () => string;
}

/** Saves the settings with the audit row of the change that made them: a setting never changes unrecorded. */
const saveAudited = (
  deps: WebhookSettingsDeps,
  record: WebhookSettingsRecord,
  audit: SettingsAudit,
  now: Date,
  action: "webhook_settings.updated" | "webhook_secret.rotated",
  details: Record<string, unknown>,
) =>
  deps.settings.save(
    record,
    auditRecord({ now, newId: audit.newId }, audit.by, record.organization_id, action, "webhook_settings", details),
  );

/** An organization that never set anything: no URL, no kinds, no secret. */
const emptySettings = (organizationId: string, now: Date): WebhookSettingsRecord => ({
  organization_id: organizationId,
  webhook_url: null,
  event_types: [],
  secret_sealed: null,
  previous_secret_sealed: null,
  previous_secret_expires_at: null,
  updated_at: now,
});

const load = async (
  deps: Pick<WebhookSettingsDeps, "organizations" | "settings">,
  organizationId: string,
  now: Date,
) => {
  if (!(await deps.organizations.get(organizationId))) throw notFound("Organization");
  return (await deps.settings.get(organizationId)) ?? emptySettings(organizationId, now);
};

export const webhookSettingsJson = (r: WebhookSettingsRecord): WebhookSettings => ({
  organization_id: r.organization_id,
  webhook_url: r.webhook_url,
  event_types: r.event_types === "all" ? "all" : [...r.event_types],
});

export const getWebhookSettings = async (
  deps: Pick<WebhookSettingsDeps, "organizations" | "settings">,
  organizationId: string,
  now: Date,
): Promise<WebhookSettings> => webhookSettingsJson(await load(deps, organizationId, now));

const newSecret = (deps: Pick<WebhookSettingsDeps, "crypto">): string => formatWebhookSecret(deps.crypto.newKey());

/**
 * Sets or clears the webhook_url (HTTPS only; an IP literal outside `allowedNetworks` that is private,
 * loopback or link-local is refused) and the kinds to receive. Absent fields stay. The first time a
 * URL is set the organization gets a signing secret, so no delivery is ever unsigned.
 */
export const updateWebhookSettings = async (
  deps: WebhookSettingsDeps,
  now: Date,
  organizationId: string,
  input: WebhookSettingsInput,
  options: { allowedNetworks: readonly Cidr[]; audit: SettingsAudit },
): Promise<WebhookSettings> => {
  const current = await load(deps, organizationId, now);
  const errors: FieldError[] = [];
  if (typeof input.webhook_url === "string") {
    errors.push(...validateWebhookUrl(input.webhook_url, { allowedNetworks: options.allowedNetworks }));
  }
  let eventTypes = current.event_types;
  if (input.event_types !== undefined) {
    const normalized = normalizeEventTypes(input.event_types, EVENT_TYPES);
    errors.push(...normalized.errors);
    eventTypes = normalized.eventTypes;
  }
  if (errors.length > 0) throw validationFailed("Invalid webhook settings", errors);
  const next: WebhookSettingsRecord = {
    ...current,
    webhook_url: input.webhook_url === undefined ? current.webhook_url : input.webhook_url,
    event_types: eventTypes,
    updated_at: now,
  };
  if (next.webhook_url && !next.secret_sealed) next.secret_sealed = deps.secrets.seal(newSecret(deps));
  await saveAudited(deps, next, options.audit, now, "webhook_settings.updated", {
    webhook_url: next.webhook_url,
    event_types: next.event_types,
    ...(current.webhook_url !== next.webhook_url ? { previous_webhook_url: current.webhook_url } : {}),
  });
  return webhookSettingsJson(next);
};

/**
 * The organization's signing secret, created when there is none; `rotate` makes a new one while the
 * old keeps signing beside it for 24 hours (both are shown until then).
 */
export const webhookSecret = async (
  deps: WebhookSettingsDeps,
  now: Date,
  organizationId: string,
  options: { rotate: boolean; audit: SettingsAudit },
): Promise<WebhookSecret> => {
  let record = await load(deps, organizationId, now);
  const current = record.secret_sealed ? deps.secrets.open(record.secret_sealed) : null;
  if (options.rotate || current === null) {
    const rotated = rotateSecrets(options.rotate ? current : null, newSecret(deps), now);
    record = {
      ...record,
      secret_sealed: deps.secrets.seal(rotated.current as string),
      previous_secret_sealed: rotated.previous ? deps.secrets.seal(rotated.previous) : null,
      previous_secret_expires_at: rotated.previousExpiresAt,
      updated_at: now,
    };
    await saveAudited(deps, record, options.audit, now, "webhook_secret.rotated", {
      rotated: options.rotate,
      previous_kept_until: record.previous_secret_expires_at?.toISOString() ?? null,
    });
  }
  const signing = activeSecrets({ ...openSecrets(deps, record), now });
  const [secret, previous] = signing as [string, string | undefined];
  return previous === undefined
    ? { secret }
    : {
        secret,
        previous_secret: previous,
        previous_secret_expires_at: isoMillis(record.previous_secret_expires_at as Date),
      };
};

/** The secrets of a settings record, opened. */
export const openSecrets = (
  deps: { secrets: Pick<SecretBox, "open"> },
  r: Pick<WebhookSettingsRecord, "secret_sealed" | "previous_secret_sealed" | "previous_secret_expires_at">,
) => ({
  current: r.secret_sealed ? deps.secrets.open(r.secret_sealed) : null,
  previous: r.previous_secret_sealed ? deps.secrets.open(r.previous_secret_sealed) : null,
  previousExpiresAt: r.previous_secret_expires_at,
});

/**
 * Data services (docs/interface.md, Events and webhooks) are enabled on an OAuth application at the organization's request; a
 * webhook is posted only when one of its applications has them.
 */
export const setDataServices = async (
  deps: { apps: Pick<OAuthApplicationStore, "get" | "update"> },
  ctx: { now: Date; newId: () => string },
  organizationId: string,
  applicationId: number,
  enabled: boolean,
): Promise<DataServicesSetting> => {
  const app = orNotFound(await deps.apps.get(organizationId, applicationId), "OAuth application");
  if (app.data_services_enabled !== enabled)
    await deps.apps.update(
      { ...app, data_services_enabled: enabled },
      auditRecord(ctx, OPERATOR, organizationId, "oauth_application.updated", `oauth_application:${app.id}`, {
        changed: ["data_services_enabled"],
        data_services_enabled: enabled,
      }),
    );
  return { organization_id: organizationId, application_id: app.id, name: app.name, data_services_enabled: enabled };
};
