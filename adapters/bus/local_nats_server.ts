import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";

const bindable = (port: number): Promise<number | null> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(null));
    srv.listen(port, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === "object" && address ? address.port : null));
    });
  });

/** The lowest port the kernel hands out to outgoing connections (Linux's ip_local_port_range). */
const ephemeralLow = (): number => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : 0;
  } catch {
    return 0;
  }
};

/**
 * A free loopback TCP port for a server started next. It is free when picked, not held: a port of
 * the kernel's ephemeral range can meanwhile go to an outgoing connection, so it is picked at random
 * below that range (where only servers bind), and by the kernel only when that range is unknown or
 * nothing below it is free.
 */
export const freePort = async (): Promise<number> => {
  const low = ephemeralLow();
  const from = Math.max(1025, low - 12_000);
  for (let i = 0; low > from && i < 50; i++) {
    const port = await bindable(from + Math.floor(Math.random() * (low - from)));
    if (port !== null) return port;
  }
  const port = await bindable(0);
  if (port === null) throw new Error("no free loopback port");
  return port;
};

export interface LocalNats {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

interface LocalNatsOptions {
  storeDir: string;
  port?: number;
  binary?: string;
  /** More `nats-server` arguments (a config file with users, TLS...). */
  args?: string[];
  /** A configuration file (a cluster node's) naming the port and store, instead of flags. */
  config?: string;
}

/**
 * Starts a JetStream-enabled `nats-server` (Debian's package) on loopback, storing in `storeDir`.
 * Used by `npm start` when NATS_URL is unset, and by tests.
 */
export const startLocalNats = async (opts: LocalNatsOptions): Promise<LocalNats> => {
  if (opts.port !== undefined || opts.config) return startOn(opts, opts.port ?? (await freePort()));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(opts, await freePort());
    } catch (err) {
      // Another process bound the port between freePort's check and the server's: another one.
      if (attempt >= 5 || !(err instanceof PortTaken)) throw err;
    }
  }
};

class PortTaken extends Error {}

const startOn = async (opts: LocalNatsOptions, port: number): Promise<LocalNats> => {
  const storeDir = resolve(opts.storeDir);
  mkdirSync(storeDir, { recursive: true });
  const binary = opts.binary ?? "nats-server";
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
      ...(opts.config ? ["-c", resolve(opts.config)] : ["-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", String(port)]),
      ...(opts.args ?? []),
    ],
    {
      stdio: ["pipe", "ignore", "pipe"],
      // nats-server can write a consumer's metadata on a relative path while a cluster node stops:
      // run it in its own store, so nothing lands in the caller's directory.
      cwd: storeDir,
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
      if (/address already in use/i.test(log))
        return reject(new PortTaken(`nats-server could not bind its port:\n${log}`));
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
