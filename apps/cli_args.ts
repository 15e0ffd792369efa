/** What the CLI's argument parser hands each command: `--name value` and `--flag`. */
export type Options = Record<string, string | boolean | undefined>;

/** A command given wrong arguments: says why on stderr and exits 2. */
export const usage = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(2);
};

/** The value of `--name`, or a usage error naming it. */
export const required = (o: Options, name: string, command: string): string => {
  const v = o[name];
  return typeof v === "string" ? v : usage(`${command} needs --${name}`);
};
