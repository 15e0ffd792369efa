import type { Handler } from "./cli.ts";
import { usage } from "./cli_args.ts";

/** Platforms registered through the Open Badges API: the CLI side of the `platforms` tRPC router. */
export const PLATFORM_USAGE = `  platforms list
  platforms remove --client <client_id>`;

export const PLATFORM_OPTIONS = {
  client: { type: "string" },
} as const;

export const PLATFORM_HANDLERS: Record<string, Handler> = {
  "platforms list": async (client) => {
    const platforms = await client.platforms.list.query();
    const text =
      platforms.length === 0
        ? "No platform has registered."
        : platforms
            .map((p) => `${p.client_id}  ${p.client_name}  ${p.client_uri}  registered ${p.created_at}\n  ${p.scope}`)
            .join("\n");
    return { json: platforms, text };
  },
  "platforms remove": async (client, o) => {
    const clientId = typeof o.client === "string" ? o.client : usage("platforms remove needs --client <client_id>");
    const done = await client.platforms.remove.mutate({ client_id: clientId });
    return { json: done, text: `Removed ${clientId}: its earners' grants and tokens end now.` };
  },
};
