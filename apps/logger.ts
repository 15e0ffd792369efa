import pino from "pino";

/** pino options for every process: secrets in headers never reach the log. */
export const loggerOptions = (level: string): object => ({
  level,
  redact: {
    paths: ["req.headers.authorization", "req.headers.cookie", "*.client_secret", "*.token", "*.secret"],
    censor: "[redacted]",
  },
});

/**
 * Standard output written asynchronously: lines logged while a write is under way go out together
 * in the next one, instead of one blocking write each (the log mailer writes a line per issued
 * badge). `flush` writes what is left; call it on shutdown. A crash can lose the lines of the last
 * write in flight, never data.
 */
export const asyncStdout = (): { stream: pino.DestinationStream; flush(): void } => {
  const stream = pino.destination({ dest: 1, sync: false });
  return {
    stream,
    flush: () => {
      try {
        stream.flushSync();
      } catch {
        // Nothing to flush, or stdout already gone.
      }
    },
  };
};

/**
 * An error nobody awaited is logged as a JSON line instead of Node's plain-text report; a
 * rejection is not fatal (the process keeps serving), an uncaught exception still ends it.
 */
export const logUncaught = (log: pino.Logger, flush: () => void = () => undefined): void => {
  process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection"));
  process.on("uncaughtException", (err) => {
    log.fatal({ err }, "uncaught exception");
    flush();
    process.exit(1);
  });
};
