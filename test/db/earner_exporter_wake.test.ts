import t from "tap";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { listenForExports, openDatabase, postgresExportStore } from "../../adapters/db/mod.ts";
import { type ExportStore, requestExport } from "../../core/earners/mod.ts";
import { startEarnerExporter } from "../../workers/mod.ts";
import { eventually } from "../support/badges.ts";
import { createTestDatabase, tempDir } from "../support/services.ts";

// The exporter on real PostgreSQL: idle, it waits for a requested export's notification (its
// safety poll here a minute away) instead of looking every second.
const database = await createTestDatabase();
const dir = tempDir();
const db = await openDatabase({ databaseUrl: database.url, dataDir: dir.path });
t.teardown(async () => {
  await db.close();
  await database.drop();
  dir.remove();
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

t.test("an idle exporter does not poll, and a request wakes it at once", async (t) => {
  const userId = uuidv7();
  await db.run(
    "insert into users (id, first_name, last_name, created_at, updated_at) values (?, 'Ada', 'Lovelace', now(), now())",
    [userId],
  );
  const store = postgresExportStore(db);
  let claims = 0;
  const counted: ExportStore = {
    ...store,
    claim: (...args) => {
      claims++;
      return store.claim(...args);
    },
  };
  const written: string[] = [];
  const exporter = await startEarnerExporter(
    {
      store: counted,
      write: async (job) => {
        written.push(job.id);
        return true;
      },
      clock: () => new Date(),
      log: quiet,
      listen: (onNotify) => listenForExports(db, onNotify, () => undefined),
    },
    { intervalMs: 1_000, safetyPollMs: 60_000, relistenMs: 5_000 },
  );
  t.teardown(() => exporter.stop());
  await eventually(async () => (claims > 0 ? true : undefined));
  // Three of the old poll's intervals: an idle exporter makes no round in them.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  t.equal(claims, 1, "one look when it started, none while idle");

  const requested = await requestExport({ store }, { now: new Date(), newId: uuidv7 }, userId);
  // Well before the safety poll: only the notification can have woken it.
  await eventually(async () => (written.includes(requested.id) ? true : undefined), 2_000);
  t.same(written, [requested.id], "the requested export was written");
});
