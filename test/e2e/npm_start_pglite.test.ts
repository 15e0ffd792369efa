import { execFile } from "node:child_process";
import { promisify } from "node:util";
import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { basic } from "../support/laurel.ts";
import { runTs, startTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";

/**
 * The README's walk-through as a new user runs it: `npm start`'s build (ops/build.sh) and its
 * process (dist/apps/start.js) with no DATABASE_URL and no NATS_URL (embedded PGlite, a local
 * nats-server it starts), then the admin CLI and the REST API with curl's requests.
 */
t.test("npm start on PGlite: CLI, OAuth application, token, API call", async (t) => {
  const build = await promisify(execFile)("bash", ["ops/build.sh"], {
    cwd: new URL("../..", import.meta.url).pathname,
  });
  t.equal(build.stderr, "", "the build says nothing on stderr");
  const dir = tempDir();
  const port = await freePort();
  // Two draws may name the same port; the admin listener needs one of its own.
  let adminPort = await freePort();
  while (adminPort === port) adminPort = await freePort();
  const origin = `http://localhost:${port}`;
  const adminOrigin = `http://localhost:${adminPort}`;
  const ports = { PORT: String(port), ADMIN_PORT: String(adminPort) };
  // dist/ is the compiled copy of sources other tests cover; tap would count its files as a second,
  // mostly unrun code base and drop the suite under its coverage floors, so its processes record none.
  const env = {
    DATA_DIR: dir.path,
    ...ports,
    DATABASE_URL: "",
    NATS_URL: "",
    LOG_LEVEL: "info",
    _TAPJS_PROCESSINFO_COVERAGE_: "0",
  };
  // The words for the person at the terminal come once it listens, on stderr; the log line saying
  // so goes to stdout through the logger's own buffer, so either may arrive first.
  const server = await startTs(
    "dist/apps/start.js",
    env,
    (out) => out.includes("Laurel is running") && out.includes("Laurel listening on"),
  );
  t.teardown(async () => {
    await server.stop();
    dir.remove();
  });
  t.match(server.output(), /database pglite/);
  t.match(server.output(), `Laurel is running. The console: ${origin}/console`, "the console's address, in words");
  t.match(
    server.output(),
    `PORT=${port} ADMIN_PORT=${adminPort} DATA_DIR=${dir.path} npm run -s cli -- organizations create`,
    "and the command that makes its first owner, with what the CLI needs to find this process",
  );
  // The Node the project brings (the npm `node` package) runs the tests and every process they start.
  t.ok(Number(process.versions.node.split(".")[0]) >= 24, `tests run on Node 24 or later (${process.version})`);
  t.ok(server.output().includes(`(Node ${process.version})`), "the start line names the Node it runs on");

  const health = await fetch(`${origin}/healthz`);
  t.equal(health.status, 200);
  t.match(await health.json(), {
    status: "ok",
    checks: { database: true, nats: true },
    required: ["database", "nats"],
  });
  t.equal((await fetch(`${adminOrigin}/healthz`)).status, 200, "health on the admin listener too");
  t.equal((await fetch(`${origin}/trpc/organizations.list`)).status, 404, "no admin API on the public listener");
  t.equal((await fetch(`${origin}/metrics`)).status, 404, "no metrics on the public listener");
  t.match(await (await fetch(`${adminOrigin}/metrics`)).text(), /laurel_/);

  // No LAUREL_URL: the CLI finds the admin listener from PORT / ADMIN_PORT as the server does.
  const cli = await runTs(
    "apps/cli.ts",
    ["organizations", "create", "--name", "Acme", "--email", "acme@example.org", "--json"],
    {
      ...ports,
      DATA_DIR: dir.path,
    },
  );
  t.equal(cli.code, 0, cli.stderr);
  const created = JSON.parse(cli.stdout);
  t.match(created, {
    organization: { id: String, name: "Acme" },
    authorization_token: {
      token: String,
      read_enabled: true,
      write_enabled: true,
      delete_enabled: true,
      owner: { type: "Organization", name: "Acme" },
    },
  });
  const org = created.organization.id as string;

  const human = await runTs("apps/cli.ts", ["organizations", "list"], { LAUREL_URL: adminOrigin, DATA_DIR: dir.path });
  t.equal(human.code, 0);
  t.match(human.stdout, new RegExp(`id: ${org}\\s+name: Acme`));

  const noToken = await runTs("apps/cli.ts", ["organizations", "list"], {
    LAUREL_URL: adminOrigin,
    LAUREL_ADMIN_TOKEN: "wrong",
  });
  t.equal(noToken.code, 1, "a wrong admin token is refused");
  t.match(noToken.stderr, /UNAUTHORIZED/);

  const appRes = await fetch(`${origin}/v1/organizations/${org}/oauth_applications`, {
    method: "POST",
    headers: { authorization: basic(created.authorization_token.token), "content-type": "application/json" },
    body: JSON.stringify({ name: "walk-through" }),
  });
  t.equal(appRes.status, 201);
  const app = ((await appRes.json()) as { data: { uid: string; secret: string } }).data;
  const tokenRes = await fetch(`${origin}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app.uid,
      client_secret: app.secret,
      scope: "oauth_applications",
    }),
  });
  t.equal(tokenRes.status, 200);
  const { access_token } = (await tokenRes.json()) as { access_token: string };
  const list = await fetch(`${origin}/v1/organizations/${org}/oauth_applications`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  t.equal(list.status, 200);
  t.equal(((await list.json()) as { data: unknown[] }).data.length, 1);

  // A second process on the same embedded database is refused with a clear message.
  const second = await runTs("dist/apps/start.js", [], { ...env, PORT: String(await freePort()) });
  t.not(second.code, 0);
  t.match(second.stdout + second.stderr, /in use by process/);

  t.equal(await server.stop(), 0, "stops cleanly on SIGTERM");
});
