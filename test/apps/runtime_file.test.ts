import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { adminUrlOf, findRunning, type RuntimeInfo, runtimeDir, writeRuntimeFiles } from "../../apps/runtime_file.ts";
import { tempDir } from "../support/services.ts";

/**
 * Which running `npm start` the CLI picks from the runtime files: the only live one, else the only
 * one started in the CLI's directory, else none (asking); a data directory names its own; files of
 * dead processes and files others could write are not believed.
 */
const info = (over: Partial<RuntimeInfo>): RuntimeInfo => ({
  pid: process.pid,
  cwd: "/home/ada/laurel",
  started_at: "2026-12-07T10:00:00.000Z",
  public_url: "http://localhost:3000",
  port: 3000,
  admin_host: "127.0.0.1",
  admin_port: 3001,
  data_dir: "/home/ada/laurel/data",
  ...over,
});
const dead = spawnSync("true").pid as number;

t.test("the per-user directory", async (t) => {
  t.equal(runtimeDir({ LAUREL_RUNTIME_DIR: "/srv/run" }), "/srv/run");
  t.equal(runtimeDir({ XDG_RUNTIME_DIR: "/run/user/1000" }), "/run/user/1000/laurel");
  t.match(runtimeDir({}), /laurel-\d+$/);
});

t.test("choosing among the files", async (t) => {
  const dir = tempDir();
  t.teardown(dir.remove);
  const put = (name: string, i: RuntimeInfo) => writeFileSync(join(dir.path, name), JSON.stringify(i));
  const find = (cwd = "/home/ada/laurel") => findRunning({ dir: dir.path, cwd });

  t.same(find(), { kind: "none" }, "no file: none");
  put(`${dead}.json`, info({ pid: dead }));
  t.same(find(), { kind: "none" }, "a dead process's file: none");
  t.notOk(existsSync(join(dir.path, `${dead}.json`)), "and it is removed");

  put(`${process.pid}.json`, info({}));
  t.match(find("/elsewhere"), { kind: "found", info: { pid: process.pid } }, "the only one running, from anywhere");
  put(`${process.ppid}.json`, info({ pid: process.ppid, cwd: "/home/bo/laurel", admin_port: 4001 }));
  t.match(find(), { kind: "found", info: { pid: process.pid } }, "two: the one started here");
  t.match(find("/home/bo/laurel"), { kind: "found", info: { pid: process.ppid } });
  t.match(find("/elsewhere"), { kind: "several" }, "two, neither here: the CLI asks");

  chmodSync(join(dir.path, `${process.ppid}.json`), 0o666);
  t.match(find("/elsewhere"), { kind: "found", info: { pid: process.pid } }, "a file others may write is not believed");
  chmodSync(dir.path, 0o777);
  t.same(find(), { kind: "none" }, "nor a directory others may write");
});

t.test("a data directory names its own process; a clean stop removes both files", async (t) => {
  const data = tempDir();
  const run = tempDir();
  t.teardown(() => {
    data.remove();
    run.remove();
  });
  const dir = join(run.path, "laurel");
  const remove = writeRuntimeFiles(info({ data_dir: data.path }), dir);
  t.match(findRunning({ dir: "/nonexistent", cwd: "/", dataDir: data.path }), {
    kind: "found",
    info: { data_dir: data.path },
  });
  t.match(findRunning({ dir, cwd: "/" }), { kind: "found" });
  remove();
  t.same(findRunning({ dir: "/nonexistent", cwd: "/", dataDir: data.path }), { kind: "none" });
  t.same(findRunning({ dir, cwd: "/" }), { kind: "none" });
  mkdirSync(join(run.path, "open"), { mode: 0o777 });
  chmodSync(join(run.path, "open"), 0o777);
  t.throws(
    () => writeRuntimeFiles(info({ data_dir: data.path }), join(run.path, "open")),
    /not this user's own private/,
  );
});

t.test("the admin listener's address from here", async (t) => {
  t.equal(adminUrlOf(info({})), "http://127.0.0.1:3001");
  t.equal(adminUrlOf(info({ admin_host: "0.0.0.0" })), "http://127.0.0.1:3001");
  t.equal(adminUrlOf(info({ admin_host: "::1" })), "http://[::1]:3001");
});
