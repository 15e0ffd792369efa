import { type ChildProcess, spawn } from "node:child_process";

export const ROOT = new URL("../..", import.meta.url).pathname;

/**
 * The environment of a process a test starts: the test's own, then `env`. The test's own carries
 * the setting of test/support/record_no_modules.cjs (under `npm test`, tap's process-info hook,
 * which every child inherits through NODE_OPTIONS, records no module).
 */
export const childEnv = (env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...env,
});

/** Runs a TypeScript entry point of the project (`apps/cli.ts` ...) to completion; this Node strips the types. */
export const runTs = (
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });

/** Starts a long-running entry point and waits until `ready(output)` says so. */
export const startTs = async (
  entry: string,
  env: Record<string, string>,
  ready: (output: string) => boolean,
  timeoutMs = 60_000,
): Promise<{ child: ChildProcess; output(): string; stop(signal?: NodeJS.Signals): Promise<number | null> }> => {
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + timeoutMs;
  while (!ready(output)) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${entry} not ready after ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => output,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill(signal);
      }),
  };
};

/**
 * A worker process (`apps/worker.ts`) beside a test Laurel, on its database, NATS and data
 * directory, with `env` added; resolved once the worker says it is ready.
 */
export const startWorkerBeside = (
  laurel: { database: { url: string } | null; nats: { url: string }; dataDir: string },
  env: Record<string, string> = {},
) =>
  startTs(
    "apps/worker.ts",
    {
      DATABASE_URL: laurel.database?.url as string,
      NATS_URL: laurel.nats.url,
      DATA_DIR: laurel.dataDir,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...env,
    },
    (out) => out.includes("webhook worker ready"),
  );
