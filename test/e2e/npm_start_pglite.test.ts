import { execFile, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { basic } from "../support/laurel.ts";
import { ROOT, runTs, startTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";

/**
 * The README's walk-through as a new user runs it: `npm start`'s build (ops/build.sh) and its
 * process (dist/apps/start.js) with no DATABASE_URL and no NATS_URL (embedded PGlite, a local
 * nats-server it starts), then the admin CLI and the REST API with curl's requests. The CLI finds
 * the running process by the runtime file it writes, with no PORT, ADMIN_PORT or DATA_DIR.
 */
t.test("npm start on PGlite: CLI, OAuth application, token, API call", async (t) => {
  const build = await promisify(execFile)("bash", ["ops/build.sh"], {
    cwd: new URL("../..", import.meta.url).pathname,
  });
  t.equal(build.stderr, "", "the build says nothing on stderr");
  const dir = tempDir();
  // The per-user runtime directory, this test's own: other processes on the machine write theirs elsewhere.
  const runtime = tempDir();
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
    LAUREL_RUNTIME_DIR: runtime.path,
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
    runtime.remove();
  });
  t.match(server.output(), /database pglite/);
  t.match(server.output(), `Laurel is running. The console: ${origin}/console`, "the console's address, in words");
  t.match(
    server.output(),
    "\n  npm run -s cli -- organizations create --name 'My organization'",
    "and the command that makes its first owner, nothing to add: the CLI finds this process",
  );
  t.match(server.output(), `with several running, name this one: DATA_DIR=${dir.path}`);
  const pid = server.child.pid as number;
  const written = JSON.parse(readFileSync(join(runtime.path, `${pid}.json`), "utf8"));
  t.match(
    written,
    { pid, cwd: ROOT.replace(/\/$/, ""), port, admin_port: adminPort, admin_host: "127.0.0.1", data_dir: dir.path },
    "the runtime file names the process, its ports and its data directory",
  );
  t.same(
    JSON.parse(readFileSync(join(dir.path, "laurel.runtime.json"), "utf8")),
    written,
    "so does the data directory's",
  );
  t.notMatch(JSON.stringify(written), /laurel_admin_/, "and holds no secret");
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

  // A file left by a process that is gone is ignored (and cleared away).
  const gone = spawnSync("true").pid as number;
  writeFileSync(join(runtime.path, `${gone}.json`), JSON.stringify({ ...written, pid: gone, admin_port: 1 }));
  // Nothing says where Laurel is: the CLI finds it (and its admin token) by the runtime file.
  const cli = await runTs(
    "apps/cli.ts",
    ["organizations", "create", "--name", "Acme", "--email", "acme@example.org", "--json"],
    { LAUREL_RUNTIME_DIR: runtime.path },
  );
  t.notOk(existsSync(join(runtime.path, `${gone}.json`)), "the dead process's file is removed");
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

  // As before, PORT / ADMIN_PORT name the admin listener without the file.
  const byPorts = await runTs("apps/cli.ts", ["organizations", "list"], { ...ports, DATA_DIR: dir.path });
  t.equal(byPorts.code, 0, byPorts.stderr);

  // A file others may write (as one planted in a shared directory would be) is not believed.
  const planted = join(runtime.path, `${process.pid}.json`);
  writeFileSync(planted, JSON.stringify({ ...written, pid: process.pid, admin_port: 1 }));
  chmodSync(planted, 0o666);
  const ignored = await runTs("apps/cli.ts", ["organizations", "list"], { LAUREL_RUNTIME_DIR: runtime.path });
  t.equal(ignored.code, 0, `a world-writable runtime file is ignored: ${ignored.stderr}`);

  // Two running in this directory (this test process stands for the second): the CLI asks which.
  chmodSync(planted, 0o644);
  writeFileSync(
    join(runtime.path, `${process.pid}.json`),
    JSON.stringify({ ...written, pid: process.pid, data_dir: "/srv/other" }),
  );
  const which = await runTs("apps/cli.ts", ["organizations", "list"], { LAUREL_RUNTIME_DIR: runtime.path });
  t.equal(which.code, 2, "several running: the CLI does not guess");
  t.match(which.stderr, `DATA_DIR=${dir.path}`, "it names each one's data directory");
  t.match(which.stderr, "DATA_DIR=/srv/other");
  const named = await runTs("apps/cli.ts", ["organizations", "list"], {
    LAUREL_RUNTIME_DIR: runtime.path,
    DATA_DIR: dir.path,
  });
  t.equal(named.code, 0, named.stderr);
  t.match(named.stdout, /name: Acme/, "DATA_DIR picks the one using it");

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
  t.same(
    readdirSync(runtime.path).filter((n) => n === `${pid}.json`),
    [],
    "a clean stop removes its runtime file",
  );
  t.notOk(existsSync(join(dir.path, "laurel.runtime.json")), "and the data directory's");
});
