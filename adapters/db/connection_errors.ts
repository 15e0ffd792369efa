/**
 * Whether an error means the database cannot be reached right now (the server restarting, shutting
 * down or refusing connections, a connection cut), as opposed to a fault in a statement. Callers
 * answer such errors "try again shortly" (503 with Retry-After) rather than as an internal error;
 * the pool replaces broken connections by itself.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown: the server is stopping and terminated this session
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "53300", // too_many_connections
  // read_only_sql_transaction: a write reached a server that is a standby now (its primary was
  // demoted in a failover); the adapter looks for the new primary for the next statement.
  "25006",
]);

const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"]);

const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection (?:is )?(?:closed|ended)|Client has encountered a connection error|timeout exceeded when trying to connect|Connection terminated due to connection timeout|the database system is (?:shutting down|starting up|in recovery mode)/i;

const one = (err: object): boolean => {
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  // Class 08: connection exception.
  if (typeof code === "string" && /^08[0-9A-Z]{3}$/.test(code)) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && UNAVAILABLE_MESSAGES.test(message);
};

export const isDatabaseUnavailable = (err: unknown): boolean => {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === "object"; depth++) {
    if (one(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};
