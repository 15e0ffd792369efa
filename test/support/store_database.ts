import { type Database, openDatabase } from "../../adapters/db/mod.ts";
import { createTestDatabase, tempDir } from "./services.ts";

/**
 * A migrated PostgreSQL database of the file's own, opened as the stores open it and dropped when
 * the file's tests end: what every store test on real PostgreSQL starts with.
 */
export const openStoreDatabase = async (tap: { teardown(fn: () => Promise<void>): void }): Promise<Database> => {
  const database = await createTestDatabase();
  const dir = tempDir();
  const db = await openDatabase({ databaseUrl: database.url, dataDir: dir.path });
  tap.teardown(async () => {
    await db.close();
    await database.drop();
    dir.remove();
  });
  return db;
};
