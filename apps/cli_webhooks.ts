import type { Handler } from "./cli.ts";
import { type Options, usage } from "./cli_args.ts";

/** Webhooks: the CLI side of the `webhooks` and `oauthApplications` tRPC routers. */
export const WEBHOOK_USAGE = `  webhooks show --organization <id>
  webhooks set --organization <id> [--url <https url> | --clear-url] [--events <kind,kind...>|all]
  webhooks secret --organization <id> [--rotate]
  oauth-applications data-services --organization <id> --application <id> --enable|--disable
  webhooks deliveries --organization <id> [--event <id>] [--status pending|delivering|succeeded|failed] [--page <n>]
  webhooks attempts --organization <id> [--event <id>] [--delivery <id>] [--limit <n>]
  webhooks redeliver --organization <id> --event <id>
  webhooks redeliver-failed --organization <id> --since <ISO 8601 time>`;

export const WEBHOOK_OPTIONS = {
  organization: { type: "string" },
  url: { type: "string" },
  "clear-url": { type: "boolean" },
  events: { type: "string" },
  rotate: { type: "boolean" },
  application: { type: "string" },
  enable: { type: "boolean" },
  disable: { type: "boolean" },
  event: { type: "string" },
  delivery: { type: "string" },
  status: { type: "string" },
  since: { type: "string" },
  limit: { type: "string" },
} as const;

const organization = (o: Options, command: string): string =>
  typeof o.organization === "string" ? o.organization : usage(`${command} needs --organization <id>`);

const integer = (value: string | boolean | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isInteger(n) ? n : usage(`--${name} must be a whole number`);
};

const settingsText = (s: { organization_id: string; webhook_url: string | null; event_types: "all" | string[] }) =>
  `Organization ${s.organization_id}\n  webhook_url: ${s.webhook_url ?? "(none)"}\n  event kinds: ${
    s.event_types === "all" ? "all" : s.event_types.length === 0 ? "(none)" : s.event_types.join(", ")
  }`;

const STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;

export const WEBHOOK_HANDLERS: Record<string, Handler> = {
  "webhooks show": async (client, o) => {
    const s = await client.webhooks.settings.query({ organization_id: organization(o, "webhooks show") });
    return { json: s, text: settingsText(s) };
  },
  "webhooks set": async (client, o) => {
    const organization_id = organization(o, "webhooks set");
    if (typeof o.url === "string" && o["clear-url"]) usage("webhooks set takes --url or --clear-url, not both");
    if (o.url === undefined && !o["clear-url"] && o.events === undefined) {
      usage("webhooks set needs --url, --clear-url or --events");
    }
    // Loaded here, not at the CLI's start: core's modules bring TypeBox and its schemas
    // (docs/benchmarks.md, figures behind the code).
    const { parseEventTypeList } = await import("../core/webhooks/mod.ts");
    const s = await client.webhooks.update.mutate({
      organization_id,
      ...(typeof o.url === "string" ? { webhook_url: o.url } : o["clear-url"] ? { webhook_url: null } : {}),
      ...(typeof o.events === "string" ? { event_types: parseEventTypeList(o.events) as "all" | string[] } : {}),
    });
    return { json: s, text: settingsText(s) };
  },
  "webhooks secret": async (client, o) => {
    const s = await client.webhooks.secret.mutate({
      organization_id: organization(o, "webhooks secret"),
      rotate: o.rotate === true,
    });
    const previous = s.previous_secret
      ? `\nPrevious secret (still signs until ${s.previous_secret_expires_at}): ${s.previous_secret}`
      : "";
    return { json: s, text: `Signing secret: ${s.secret}${previous}` };
  },
  "oauth-applications data-services": async (client, o) => {
    const organization_id = organization(o, "oauth-applications data-services");
    const application_id =
      integer(o.application, "application") ?? usage("oauth-applications data-services needs --application <id>");
    if (o.enable === o.disable) usage("oauth-applications data-services needs exactly one of --enable and --disable");
    const r = await client.oauthApplications.setDataServices.mutate({
      organization_id,
      application_id,
      enabled: o.enable === true,
    });
    return {
      json: r,
      text: `OAuth application ${r.application_id} (${r.name}): data services ${r.data_services_enabled ? "enabled" : "disabled"}`,
    };
  },
  "webhooks deliveries": async (client, o) => {
    const status = o.status;
    if (status !== undefined && !STATUSES.includes(status as (typeof STATUSES)[number])) {
      usage(`--status must be one of ${STATUSES.join(", ")}`);
    }
    const page = integer(o.page, "page");
    const r = await client.webhooks.deliveries.query({
      organization_id: organization(o, "webhooks deliveries"),
      ...(typeof o.event === "string" ? { event_id: o.event } : {}),
      ...(status ? { status: status as (typeof STATUSES)[number] } : {}),
      ...(page === undefined ? {} : { page }),
    });
    const lines = r.data.map(
      (d) =>
        `${d.id}  event ${d.event_id} (${d.event_type})  ${d.status}  attempts ${d.attempts_count}  next ${d.next_attempt_at ?? "-"}`,
    );
    return {
      json: r,
      text: `${lines.length === 0 ? "(none)" : lines.join("\n")}\npage ${r.metadata.current_page} of ${r.metadata.total_pages} (${r.metadata.total_count} deliveries)`,
    };
  },
  "webhooks attempts": async (client, o) => {
    const limit = integer(o.limit, "limit");
    const r = await client.webhooks.attempts.query({
      organization_id: organization(o, "webhooks attempts"),
      ...(typeof o.event === "string" ? { event_id: o.event } : {}),
      ...(typeof o.delivery === "string" ? { delivery_id: o.delivery } : {}),
      ...(limit === undefined ? {} : { limit }),
    });
    const lines = r.data.map(
      (a) =>
        `${a.started_at}  delivery ${a.delivery_id} #${a.attempt_number}  ${a.outcome}  ${a.status_code ?? "-"}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ""}`,
    );
    return { json: r, text: lines.length === 0 ? "(none)" : lines.join("\n") };
  },
  "webhooks redeliver": async (client, o) => {
    const organization_id = organization(o, "webhooks redeliver");
    if (typeof o.event !== "string") usage("webhooks redeliver needs --event <id>");
    const d = await client.webhooks.redeliver.mutate({ organization_id, event_id: o.event as string });
    return { json: d, text: `Delivery ${d.id} of event ${d.event_id}: ${d.status}, due ${d.next_attempt_at}` };
  },
  "webhooks redeliver-failed": async (client, o) => {
    const organization_id = organization(o, "webhooks redeliver-failed");
    if (typeof o.since !== "string") usage("webhooks redeliver-failed needs --since <ISO 8601 time>");
    const r = await client.webhooks.redeliverFailed.mutate({ organization_id, since: o.since as string });
    return { json: r, text: `${r.redelivered} failed deliveries redelivered` };
  },
};
