/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export const onShutdown = (stop: () => Promise<void>): void => {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
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
