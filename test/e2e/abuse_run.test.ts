import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import t from "tap";
import { spawnServer } from "../support/laurel.ts";
import { createTestDatabase, startTestNats, tempDir } from "../support/services.ts";

/**
 * Unauthenticated abuse against a running `apps/server.ts` process: 5,000 requests with random,
 * huge or malformed client ids, tokens and ids. Rate limits are off here (as in the other tests),
 * so every request reaches the look-ups and caches: the process's resident memory must grow by
 * less than 64 MiB and no request may get a 5xx.
 */
const REQUESTS = 5_000;
const CONCURRENCY = 16;
const MIB = 1024 * 1024;

const rssOf = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.replace(/\D+/g, "")) * 1024;
};

const int = (min: number, max: number): number => min + Math.floor(Math.random() * (max - min + 1));
const text = (n: number): string =>
  randomBytes(Math.ceil(n * 0.75) + 1)
    .toString("base64url")
    .slice(0, n);
const pick = <T>(items: T[]): T => items[int(0, items.length - 1)] as T;

t.test("5,000 abusive requests: bounded memory, no 5xx", async (t) => {
  const database = await createTestDatabase();
  const nats = await startTestNats();
  const dir = tempDir();
  const server = await spawnServer({ DATABASE_URL: database.url, NATS_URL: nats.url, DATA_DIR: dir.path });
  t.teardown(async () => {
    await server.stop();
    await nats.stop();
    await database.drop();
    dir.remove();
  });
  const { origin } = server;
  const org = randomUUID();

  const request = (): [string, RequestInit] =>
    pick<() => [string, RequestInit]>([
      () => [
        `${origin}/oauth/token`,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `grant_type=client_credentials&scope=events&client_id=${text(int(1, 12_000))}&client_secret=${text(int(1, 3_000))}`,
        },
      ],
      () => [
        `${origin}/oauth/token`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            grant_type: "client_credentials",
            client_id: text(int(1, 200)),
            client_secret: text(64),
          }),
        },
      ],
      () => [
        `${origin}/oauth/token`,
        {
          method: "POST",
          headers: {
            authorization: `Basic ${text(int(1, 6_000))}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials&scope=events",
        },
      ],
      () => [
        `${origin}/v1/organizations/${org}/badges`,
        { headers: { authorization: `Basic ${Buffer.from(`${text(int(1, 600))}:`).toString("base64")}` } },
      ],
      () => [
        `${origin}/v1/organizations/${org}/badges`,
        { headers: { authorization: `Basic ${text(int(1, 8_000))}` } },
      ],
      () => [
        `${origin}/v1/organizations/${org}/events`,
        { headers: { authorization: `Bearer ${text(int(1, 8_000))}` } },
      ],
      () => [
        `${origin}/v1/organizations/${org}/oauth_applications`,
        { headers: { authorization: `Bearer ${text(30)}.${text(int(10, 3_000))}.${text(86)}` } },
      ],
      () => [`${origin}/v1/obi/v2/assertions/${pick([randomUUID(), text(int(1, 400))])}`, {}],
      () => [`${origin}/v1/organizations/${text(int(1, 300))}/badges/${text(int(1, 300))}`, {}],
    ])();

  const run = async (n: number, statuses: Map<number, number>): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          next++;
          const [url, init] = request();
          let status: number;
          try {
            const res = await fetch(url, init);
            await res.arrayBuffer();
            status = res.status;
          } catch {
            status = 0; // the server closed the connection (an oversized header): not a 5xx
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
  };

  const pid = server.child.pid as number;
  await run(300, new Map());
  const before = rssOf(pid);
  const statuses = new Map<number, number>();
  await run(REQUESTS, statuses);
  const after = rssOf(pid);
  const grew = (after - before) / MIB;
  t.comment(
    `statuses ${JSON.stringify(Object.fromEntries(statuses))}; RSS ${(before / MIB).toFixed(0)} -> ${(after / MIB).toFixed(0)} MiB`,
  );
  t.ok(grew < 64, `resident memory grew ${grew.toFixed(1)} MiB`);
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  t.equal(fivexx, 0, "no 5xx");
  if (fivexx > 0)
    t.comment(
      server
        .output()
        .split("\n")
        .filter((l) => /fail|error/i.test(l))
        .slice(0, 5)
        .join("\n"),
    );
  t.equal(
    [...statuses.values()].reduce((a, b) => a + b, 0),
    REQUESTS,
  );
  t.ok((statuses.get(0) ?? 0) < REQUESTS / 2, "most requests were answered");
});
