import { relative } from "node:path";
import type { Config } from "./config.ts";

const quoted = (value: string): string => (/^[\w@./:-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`);

/**
 * What `npm start` tells the person who ran it, once it listens: where the console is, and the one
 * command that makes them the first owner of an organization (the CLI finds this process by the
 * runtime file it writes, so the command needs no PORT, ADMIN_PORT or DATA_DIR), and where the
 * mails go when there is no SMTP server.
 */
export const firstSteps = (
  config: Pick<Config, "publicUrl" | "dataDir" | "smtpUrl" | "organizationSignup">,
  cwd: string,
): string => {
  const cli = "npm run -s cli --";
  const elsewhere = relative(cwd, config.dataDir) !== "data";
  return [
    "",
    `Laurel is running. The console: ${config.publicUrl}/console`,
    "",
    "To become the first owner of an organization, run in another terminal (your own address):",
    `  ${cli} organizations create --name 'My organization' --email you@example.org --owner-email you@example.org`,
    `then open the invitation link it mails${config.smtpUrl ? "" : " (printed here)"} and sign in with that address.`,
    `The CLI, run on this machine, finds this process by itself${elsewhere ? ` (with several running, name this one: DATA_DIR=${quoted(config.dataDir)})` : ""}.`,
    ...(config.organizationSignup === "open"
      ? ["Or sign in at the console and create an organization there (ORGANIZATION_SIGNUP=open)."]
      : []),
    config.smtpUrl
      ? "Mails are sent through SMTP_URL."
      : "No SMTP_URL: no mail leaves this machine; each one is printed here with its subject and links.",
    "",
  ].join("\n");
};
