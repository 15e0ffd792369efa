import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../adapters/trpc/mod.ts";
import { BADGE_HANDLERS, BADGE_OPTIONS, BADGE_USAGE } from "./cli_badges.ts";
import { EMPLOYEE_HANDLERS, EMPLOYEE_OPTIONS, EMPLOYEE_USAGE } from "./cli_employees.ts";
import { MEMBER_HANDLERS, MEMBER_OPTIONS, MEMBER_USAGE } from "./cli_members.ts";
import { PLATFORM_HANDLERS, PLATFORM_OPTIONS, PLATFORM_USAGE } from "./cli_platforms.ts";
import { WEBHOOK_HANDLERS, WEBHOOK_OPTIONS, WEBHOOK_USAGE } from "./cli_webhooks.ts";
import { WORKFORCE_HANDLERS, WORKFORCE_OPTIONS, WORKFORCE_USAGE } from "./cli_workforce.ts";
import type { Env } from "./env_schema.ts";

/**
 * The admin CLI: a tRPC client of a running server's admin listener (LAUREL_URL; default the
 * `npm start` running on this machine, found by its runtime file, else http://localhost:$ADMIN_PORT,
 * ADMIN_PORT itself defaulting to PORT + 1 as for the server), authenticated by LAUREL_ADMIN_TOKEN
 * or DATA_DIR/admin-token (that `npm start`'s data directory when it was found).
 */
const USAGE = `Usage: npm run cli -- <resource> <action> [options] [--json]

  organizations create --name <name> --email <contact e-mail> [--owner-email <first owner>] [--description <text>] [--website-url <url>]
  organizations list [--page <n>]
${MEMBER_USAGE}
${BADGE_USAGE}
${WEBHOOK_USAGE}
${WORKFORCE_USAGE}
${EMPLOYEE_USAGE}
${PLATFORM_USAGE}

Environment: LAUREL_URL (the admin listener; default: the npm start running on this machine, found by the
file it writes, else http://localhost:$ADMIN_PORT, itself PORT + 1 = 3001), LAUREL_ADMIN_TOKEN or DATA_DIR
(default: that npm start's, else ./data).`;

const fail = (message: string, code = 2): never => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

/** Why a request got no answer: the innermost cause's code (ECONNREFUSED...) or message. */
const unreachable = (err: unknown): string => {
  let e = err as { cause?: unknown; code?: string; message?: string } | undefined;
  for (let i = 0; i < 5 && e?.cause; i++) e = e.cause as typeof e;
  return e?.code ?? e?.message ?? String(err);
};

const adminToken = (env: Env): string => {
  if (env.LAUREL_ADMIN_TOKEN) return env.LAUREL_ADMIN_TOKEN;
  const path = join(resolve(env.DATA_DIR), "admin-token");
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return fail(`No admin token: set LAUREL_ADMIN_TOKEN, or start the server once so it writes ${path}.`);
  }
};

/**
 * The `npm start` on this machine to talk to, from the file it writes (`runtime_file.ts`), when
 * nothing says where Laurel is: no LAUREL_URL, PORT or ADMIN_PORT (a DATA_DIR given picks the
 * process using it). Null: told where, or none found (the defaults apply).
 */
const runningService = async (raw: NodeJS.ProcessEnv) => {
  if (raw.LAUREL_URL || raw.PORT || raw.ADMIN_PORT) return null;
  const { findRunning, runtimeDir } = await import("./runtime_file.ts");
  const found = findRunning({
    dir: runtimeDir(raw),
    cwd: process.cwd(),
    ...(raw.DATA_DIR ? { dataDir: raw.DATA_DIR } : {}),
  });
  return found.kind === "none" ? null : found;
};

export type Output = { json: unknown; text: string };

export type Handler = (
  client: ReturnType<typeof createTRPCClient<AppRouter>>,
  opts: Record<string, string | boolean | undefined>,
) => Promise<Output>;

const table = (rows: Array<Record<string, unknown>>, columns: string[]): string =>
  rows.length === 0 ? "(none)" : rows.map((r) => columns.map((c) => `${c}: ${String(r[c])}`).join("  ")).join("\n");

const HANDLERS: Record<string, Handler> = {
  "organizations create": async (client, o) => {
    if (typeof o.name !== "string") return fail("organizations create needs --name");
    if (typeof o.email !== "string")
      return fail("organizations create needs --email (the issuer's contact address, required by Open Badges 2.0)");
    const result = await client.organizations.create.mutate({
      name: o.name,
      email: o.email,
      ...(typeof o.description === "string" ? { description: o.description } : {}),
      ...(typeof o["website-url"] === "string" ? { website_url: o["website-url"] } : {}),
      ...(typeof o["owner-email"] === "string" ? { owner_email: o["owner-email"] } : {}),
    });
    const t = result.authorization_token;
    const owner = result.owner_invitation
      ? `\nOwner invitation mailed to ${result.owner_invitation.email} (expires ${result.owner_invitation.expires_at}).`
      : "";
    return {
      json: result,
      text: `Organization ${result.organization.name} (${result.organization.id})\nAuthorization token (read, write, delete; expires ${t.expires_at}):\n  ${t.token}\nUse it as the HTTP Basic username with an empty password.${owner}`,
    };
  },
  "organizations list": async (client, o) => {
    const result = await client.organizations.list.query(typeof o.page === "string" ? { page: Number(o.page) } : {});
    return { json: result, text: table(result.data, ["id", "name", "created_at"]) };
  },
  ...BADGE_HANDLERS,
  ...WEBHOOK_HANDLERS,
  ...WORKFORCE_HANDLERS,
  ...EMPLOYEE_HANDLERS,
  ...MEMBER_HANDLERS,
  ...PLATFORM_HANDLERS,
};

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  name: { type: "string" },
  description: { type: "string" },
  email: { type: "string" },
  "website-url": { type: "string" },
  "owner-email": { type: "string" },
  page: { type: "string" },
  ...BADGE_OPTIONS,
  ...WEBHOOK_OPTIONS,
  ...WORKFORCE_OPTIONS,
  ...EMPLOYEE_OPTIONS,
  ...MEMBER_OPTIONS,
  ...PLATFORM_OPTIONS,
} as const;

export const main = async (
  argv: string[],
  extra: Record<string, Handler> = {},
  extraOptions: Record<string, { type: "string" | "boolean" }> = {},
): Promise<void> => {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: { ...OPTIONS, ...extraOptions }, allowPositionals: true, strict: true });
  } catch (err) {
    return fail(`${(err as Error).message}\n\n${USAGE}`);
  }
  const [resource, action] = parsed.positionals;
  const handler = { ...HANDLERS, ...extra }[`${resource} ${action}`];
  if (parsed.values.help || !handler) return fail(USAGE, parsed.values.help ? 0 : 2);
  // The environment's schema only when a command runs: usage and --help need no TypeBox.
  const { adminPortOf, readEnv } = await import("./env_schema.ts");
  let env: Env;
  try {
    env = readEnv(process.env);
  } catch (err) {
    return fail((err as Error).message);
  }
  const found = await runningService(process.env);
  if (found?.kind === "several")
    return fail(
      `Several Laurel processes are running; set DATA_DIR (or LAUREL_URL) to name one:\n${found.running
        .map((r) => `  DATA_DIR=${r.data_dir}  (pid ${r.pid}, ${r.public_url}, started in ${r.cwd})`)
        .join("\n")}`,
    );
  const running = found?.kind === "found" ? found.info : null;
  const url = (
    env.LAUREL_URL ??
    (running ? (await import("./runtime_file.ts")).adminUrlOf(running) : `http://localhost:${adminPortOf(env)}`)
  ).replace(/\/+$/, "");
  const tokenEnv = running ? { ...env, DATA_DIR: running.data_dir } : env;
  const client = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/trpc`, headers: () => ({ authorization: `Bearer ${adminToken(tokenEnv)}` }) })],
  });
  try {
    const out = await handler(client, parsed.values as Record<string, string | boolean | undefined>);
    process.stdout.write(`${parsed.values.json ? JSON.stringify(out.json) : out.text}\n`);
  } catch (err) {
    // A request that never got an answer (nothing listening, a wrong host) has no error data.
    if (err instanceof TRPCClientError && err.data !== undefined) {
      const data = err.data as { code?: string; errors?: Array<{ field: string; message: string }> } | undefined;
      const fields = (data?.errors ?? []).map((e) => `\n  ${e.field}: ${e.message}`).join("");
      return fail(`Error${data?.code ? ` (${data.code})` : ""}: ${err.message}${fields}`, 1);
    }
    return fail(
      `Cannot reach Laurel at ${url} (${unreachable(err)}): is it running? LAUREL_URL names another server.`,
      1,
    );
  }
};

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("apps/cli.ts")) {
  await main(process.argv.slice(2));
}
