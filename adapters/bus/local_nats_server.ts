import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/** A free loopback TCP port, chosen by the kernel. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

export interface LocalNats {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a JetStream-enabled `nats-server` (Debian's package) on loopback, storing in `storeDir`.
 * Used by `npm start` when NATS_URL is unset, and by tests.
 */
export const startLocalNats = async (opts: LocalNatsOptions): Promise<LocalNats> => {
  // A port the kernel picked is free only until it hands it out again (an outgoing connection may
  // take it before the server binds it): when the port is ours to pick, a taken one is picked again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      const ours = opts.port === undefined && opts.config === undefined;
      if (!ours || attempt === 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
};

interface LocalNatsOptions {
  storeDir: string;
  port?: number;
  binary?: string;
  /** More `nats-server` arguments (a config file with users, TLS...). */
  args?: string[];
  /** A configuration file (a cluster node's) naming the port and store, instead of flags. */
  config?: string;
}

const startOnce = async (opts: LocalNatsOptions): Promise<LocalNats> => {
  const port = opts.port ?? (await freePort());
  mkdirSync(opts.storeDir, { recursive: true });
  const binary = opts.binary ?? process.env.NATS_SERVER_BIN ?? "nats-server";
  // A small shell keeps watch on its stdin, which only this process holds: when this process ends
  // in any way (even SIGKILL) the pipe closes and the shell stops the server, so none is orphaned.
  const watchdog =
    'trap \'kill "$server" 2>/dev/null; wait "$server"\' TERM; exec 3<&0; "$0" "$@" & server=$!; (read -r _ <&3; kill "$server" 2>/dev/null) & wait "$server"';
  const child = spawn(
    "bash",
    [
      "-c",
      watchdog,
      binary,
      ...(opts.config
        ? ["-c", opts.config]
        : ["-js", "-sd", join(opts.storeDir), "-a", "127.0.0.1", "-p", String(port)]),
      ...(opts.args ?? []),
    ],
    {
      stdio: ["pipe", "ignore", "pipe"],
    },
  );
  const killChild = (): void => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.once("exit", killChild);
  await new Promise<void>((resolve, reject) => {
    let log = "";
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes("Server is ready")) {
        child.stderr?.off("data", onData);
        child.stderr?.resume();
        resolve();
      }
    };
    child.stderr?.on("data", onData);
    child.once("error", (err) =>
      reject(new Error(`Could not start ${binary}: ${err.message}. Install it with: apt-get install nats-server`)),
    );
    child.once("exit", (code) => {
      process.off("exit", killChild);
      reject(
        new Error(
          code === 127
            ? `${binary} was not found. Install it with: apt-get install nats-server`
            : `nats-server exited (${code}) before it was ready:\n${log}`,
        ),
      );
    });
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        process.off("exit", killChild);
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
};
