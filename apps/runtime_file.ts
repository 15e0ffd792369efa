import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * How the CLI finds a running `npm start` without being told its PORT, ADMIN_PORT or DATA_DIR: the
 * process writes what a client needs (never a secret: the admin token stays in its 0600 file) into
 * `<DATA_DIR>/laurel.runtime.json` and into a per-user directory every process knows
 * (`LAUREL_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/laurel`, else `<tmp>/laurel-<uid>`), one file per
 * process named by its pid. A clean stop removes both; a file whose process is gone is ignored
 * (and removed from the per-user directory when the CLI comes across it).
 */
export interface RuntimeInfo {
  pid: number;
  /** The directory `npm start` ran in (npm runs every script in the project's directory). */
  cwd: string;
  started_at: string;
  public_url: string;
  port: number;
  admin_host: string;
  admin_port: number;
  /** Absolute. */
  data_dir: string;
}

export const RUNTIME_FILE = "laurel.runtime.json";

export const runtimeDir = (env: { LAUREL_RUNTIME_DIR?: string; XDG_RUNTIME_DIR?: string }): string => {
  if (env.LAUREL_RUNTIME_DIR) return resolve(env.LAUREL_RUNTIME_DIR);
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "laurel");
  return join(tmpdir(), `laurel-${process.getuid?.() ?? "user"}`);
};

/**
 * A runtime file tells the CLI where to send the admin token, so only this user's own files, in a
 * directory no one else may write to, are believed: in a shared temporary directory another user
 * could otherwise plant one naming a port of theirs.
 */
const ownedAndPrivate = (path: string): boolean => {
  try {
    const st = statSync(path);
    const uid = process.getuid?.();
    return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
};

const writeAtomically = (path: string, text: string): void => {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text, { mode: 0o600 });
  renameSync(partial, path);
};

/** Writes this process's runtime files; the function it returns removes them (a clean stop). */
export const writeRuntimeFiles = (info: RuntimeInfo, dir: string): (() => void) => {
  const text = `${JSON.stringify(info, null, 2)}\n`;
  const inDataDir = join(info.data_dir, RUNTIME_FILE);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!ownedAndPrivate(dir)) throw new Error(`${dir} is not this user's own private directory`);
  const inRuntimeDir = join(dir, `${info.pid}.json`);
  writeAtomically(inDataDir, text);
  writeAtomically(inRuntimeDir, text);
  return () => {
    for (const path of [inDataDir, inRuntimeDir]) rmSync(path, { force: true });
  };
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

const readInfo = (path: string): RuntimeInfo | null => {
  if (!ownedAndPrivate(path)) return null;
  try {
    const info = JSON.parse(readFileSync(path, "utf8")) as RuntimeInfo;
    return Number.isInteger(info.pid) && Number.isInteger(info.admin_port) && typeof info.data_dir === "string"
      ? info
      : null;
  } catch {
    return null;
  }
};

export type Found =
  | { kind: "found"; info: RuntimeInfo }
  | { kind: "none" }
  | { kind: "several"; running: RuntimeInfo[] };

/**
 * The running `npm start` the CLI should talk to. With a data directory given, the one using it.
 * Otherwise the one running processes of this user: the only one, or the only one started in
 * `cwd`; several are named back so the person can choose (by `DATA_DIR`).
 */
export const findRunning = (opts: { dir: string; cwd: string; dataDir?: string }): Found => {
  if (opts.dataDir !== undefined) {
    const info = readInfo(join(resolve(opts.dataDir), RUNTIME_FILE));
    return info && alive(info.pid) ? { kind: "found", info } : { kind: "none" };
  }
  if (!ownedAndPrivate(opts.dir)) return { kind: "none" };
  let names: string[];
  try {
    names = readdirSync(opts.dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return { kind: "none" };
  }
  const running: RuntimeInfo[] = [];
  for (const name of names) {
    const path = join(opts.dir, name);
    const info = readInfo(path);
    if (info && alive(info.pid)) running.push(info);
    else if (info) rmSync(path, { force: true });
  }
  if (running.length === 1) return { kind: "found", info: running[0] as RuntimeInfo };
  const here = running.filter((r) => r.cwd === opts.cwd);
  if (here.length === 1) return { kind: "found", info: here[0] as RuntimeInfo };
  return running.length === 0 ? { kind: "none" } : { kind: "several", running };
};

/** The admin listener's address as a client on this machine reaches it. */
export const adminUrlOf = (info: RuntimeInfo): string => {
  const host = ["0.0.0.0", "::", ""].includes(info.admin_host) ? "127.0.0.1" : info.admin_host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${info.admin_port}`;
};
