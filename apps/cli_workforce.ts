import { readFileSync } from "node:fs";
import type { Handler } from "./cli.ts";

/** Workforce: the CLI side of the `workforce` tRPC router. */
export const WORKFORCE_USAGE = `  workforce authorize --organization <id> [--revoke]
  workforce record --organization <id> --type <employment.kind> --file <json: {employment, badge?, external_badge?}>`;

export const WORKFORCE_OPTIONS = {
  revoke: { type: "boolean" },
  type: { type: "string" },
  file: { type: "string" },
} as const;

type Options = Record<string, string | boolean | undefined>;

const usage = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(2);
};

const required = (o: Options, name: string, command: string): string => {
  const v = o[name];
  return typeof v === "string" ? v : usage(`${command} needs --${name}`);
};

const readJsonObject = (path: string): Record<string, unknown> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    return usage(`Cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : usage(`${path} must hold a JSON object`);
};

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
  "workforce record": async (client, o) => {
    const body = readJsonObject(required(o, "file", "workforce record"));
    const event = await client.workforce.recordEvent.mutate({
      ...body,
      organization_id: required(o, "organization", "workforce record"),
      event_type: required(o, "type", "workforce record"),
    } as Parameters<typeof client.workforce.recordEvent.mutate>[0]);
    return { json: event, text: `Recorded ${event.event_type} ${event.id} at ${event.occurred_at}` };
  },
};
