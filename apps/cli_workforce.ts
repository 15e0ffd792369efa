import type { Handler } from "./cli.ts";
import { required } from "./cli_args.ts";

/** Workforce: the CLI side of the `workforce` tRPC router. */
export const WORKFORCE_USAGE = `  workforce authorize --organization <id> [--revoke]`;

export const WORKFORCE_OPTIONS = {
  revoke: { type: "boolean" },
} as const;

export const WORKFORCE_HANDLERS: Record<string, Handler> = {
  "workforce authorize": async (client, o) => {
    const result = await client.workforce.authorize.mutate({
      organization_id: required(o, "organization", "workforce authorize"),
      authorized: o.revoke !== true,
    });
    return {
      json: result,
      text: `Organization ${result.organization_id}: workforce data ${result.workforce_authorized ? "authorized" : "not authorized"}`,
    };
  },
};
