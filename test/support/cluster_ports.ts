import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BLOCK = 300;
const reservations = join(tmpdir(), "laurel-cluster-ports");

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
};

/**
 * Reserves a block for this process with a file only one process can create: test files run in
 * parallel, and a block that is free now is not free once another file's cluster binds it. A
 * reservation whose process is gone is taken over; this process's is removed when it exits.
 */
const reserve = (base: number): boolean => {
  mkdirSync(reservations, { recursive: true });
  const file = join(reservations, String(base));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      process.once("exit", () => rmSync(file, { force: true }));
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
      const owner = Number(readFileSync(file, "utf8"));
      if (owner > 0 && alive(owner)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
};

/**
 * A base port whose block (the cluster uses base .. base+250) is free now and reserved for this
 * process, in 10000-18100: below the ports `freePort` gives other tests (12,000 below the kernel's
 * ephemeral range, 20768-32767 here) and below that range, where an outgoing connection could
 * take a port of the block before a process of the cluster binds it (or while PostgreSQL is stopped).
 */
export const freeClusterPortBase = async (): Promise<number> => {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer()
        .once("error", () => resolve(false))
        .listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * 27) * BLOCK;
    const used = [0, 1, 2, 11, 12, 21, 22, 50, 51, 52, 99, 221, 222, 223, 231, 232, 233, 241, 242, 243];
    if (!reserve(base)) continue;
    if ((await Promise.all(used.map((o) => free(base + o)))).every(Boolean)) return base;
    rmSync(join(reservations, String(base)), { force: true });
  }
};
