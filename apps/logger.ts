/** pino options for every process: secrets in headers never reach the log. */
export const loggerOptions = (level: string): object => ({
  level,
  redact: {
    paths: ["req.headers.authorization", "req.headers.cookie", "*.client_secret", "*.token", "*.secret"],
    censor: "[redacted]",
  },
});
