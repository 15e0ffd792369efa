import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

export const MIN_ADMIN_TOKEN_BYTES = 32;

/**
 * The admin token of the internal API: LAUREL_ADMIN_TOKEN, or one generated on first start into
 * `DATA_DIR/admin-token` (mode 0600) for the CLI on the same machine to read.
 */
export const loadAdminToken = (fromEnv: string | undefined, dataDir: string): string => {
  if (fromEnv) {
    // The token opens every organization: one short enough to guess is refused at start.
    if (Buffer.byteLength(fromEnv, "utf8") < MIN_ADMIN_TOKEN_BYTES) {
      throw new Error(`LAUREL_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_BYTES} bytes`);
    }
    return fromEnv;
  }
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "admin-token");
  try {
    const fd = openSync(path, "wx", 0o600);
    const token = `laurel_admin_${randomBytes(32).toString("base64url")}`;
    writeSync(fd, `${token}\n`);
    closeSync(fd);
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    for (let i = 0; i < 50; i++) {
      const token = readFileSync(path, "utf8").trim();
      if (token) return token;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
    throw new Error(`${path} is empty`);
  }
};
