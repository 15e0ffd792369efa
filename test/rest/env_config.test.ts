import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { readConfig } from "../../apps/config.ts";
import { configurationTable, envEntries, readEnv } from "../../apps/env_schema.ts";
import { withConfigurationTable } from "../../ops/docs_config.ts";

const ROOT = resolve(import.meta.dirname, "../..");

t.test("README's configuration table is the one the schema gives (npm run docs:config)", async (t) => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  t.equal(withConfigurationTable(readme, configurationTable()), readme);
});

t.test("every variable has a meaning, and a default or words for what unset means", async (t) => {
  for (const [name, schema] of envEntries()) {
    t.ok(schema.description.length > 0, `${name} has a meaning`);
  }
  t.ok(envEntries().length >= 49, "all the variables are there");
});

t.test("unset and empty variables take their defaults; numbers are numbers", async (t) => {
  const env = readEnv({ PORT: "8080", DB_POOL_MAX: "", RATE_LIMITS: "off" });
  t.equal(env.PORT, 8080);
  t.equal(env.DB_POOL_MAX, 10);
  t.equal(env.RATE_LIMITS, "off");
  t.equal(env.ADMIN_PORT, undefined);
  const config = readConfig({ PORT: "8080" });
  t.equal(config.adminPort, 8081, "ADMIN_PORT follows PORT");
  t.equal(config.baseUrl, "http://localhost:8080/v1");
  t.equal(config.limits.rate?.tokenPerMinute, 600);
  t.equal(config.webhooks.ackWaitMs, 60_000);
});

t.test("a bad value stops the start with a message naming the variable", async (t) => {
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ DB_POOL_MAX: "0" }, /^DB_POOL_MAX must be a positive integer, not 0$/],
    [{ DB_POOL_MAX: "ten" }, /^DB_POOL_MAX must be a positive integer, not ten$/],
    [{ DB_POOL_MAX: "1.5" }, /^DB_POOL_MAX must be a positive integer/],
    [{ PORT: "70000" }, /^PORT must be a TCP port, not 70000$/],
    [{ WEBHOOK_CONCURRENCY: "-1" }, /^WEBHOOK_CONCURRENCY must be a positive integer/],
    [{ RATE_LIMITS: "no" }, /^RATE_LIMITS must be on or off, not no$/],
    [{ LOG_LEVEL: "loud" }, /^LOG_LEVEL must be /],
    [{ SHUTDOWN_TIMEOUT_MS: "soon" }, /^SHUTDOWN_TIMEOUT_MS must be a positive integer/],
    [{ BASE_URL: "not a url" }, /^BASE_URL must be an absolute URL/],
    [{ WEBHOOK_TIMEOUT_MS: "60000", WEBHOOK_ACK_WAIT_MS: "60000" }, /^WEBHOOK_ACK_WAIT_MS \(60000\) must exceed/],
  ];
  for (const [env, message] of refused) t.throws(() => readConfig(env), message, JSON.stringify(env));
});

t.test("a process started with a bad value stops before anything starts, naming the variable", async (t) => {
  // The three apps start the same way (`readConfigOrExit`); the API server stands for them.
  const run = spawnSync(process.execPath, [join(ROOT, "apps/server.ts")], {
    env: { PATH: process.env.PATH, DB_POOL_MAX: "ten", DATA_DIR: "/nonexistent/laurel" },
    encoding: "utf8",
    timeout: 20_000,
  });
  t.equal(run.status, 2);
  t.equal(run.stderr.trim(), "configuration: DB_POOL_MAX must be a positive integer, not ten");
});

t.test("only apps/ reads the environment; everything else is given plain values", async (t) => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith(".ts") ? [path] : [];
    });
  const readers = ["core", "adapters", "workers"]
    .flatMap((dir) => sources(join(ROOT, dir)))
    .filter((file) => readFileSync(file, "utf8").includes("process.env"))
    .map((file) => file.slice(ROOT.length + 1));
  t.same(readers, []);
});
