/**
 * Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once, and so does a stop
 * that outlasts `SHUTDOWN_TIMEOUT_MS` (default 30 s: more than a webhook attempt's timeout, less
 * than a process manager's own patience).
 */
export const onShutdown = (stop: () => Promise<void>, timeoutMs: number): void => {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => {
      console.error(`shutdown after ${signal} took more than ${timeoutMs} ms; exiting`);
      process.exit(1);
    }, timeoutMs).unref();
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error(`shutdown after ${signal} failed`, err);
        process.exit(1);
      });
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
};
