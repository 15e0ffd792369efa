import { createServer } from "node:net";

/**
 * A base port whose block (the cluster uses base .. base+250) is free now, in 10000-18150: below
 * the ports `freePort` gives other tests (12,000 below the kernel's ephemeral range, 20768-32767
 * here) and below that range, where an outgoing connection could take a port of the block before a
 * process of the cluster binds it (or while PostgreSQL is stopped).
 */
export const freeClusterPortBase = async (): Promise<number> => {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer()
        .once("error", () => resolve(false))
        .listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * 80) * 100;
    const used = [0, 1, 2, 11, 12, 21, 22, 50, 51, 52, 99, 221, 222, 223, 231, 232, 233, 241, 242, 243];
    if ((await Promise.all(used.map((o) => free(base + o)))).every(Boolean)) return base;
  }
};
