import { relative } from "node:path";
import type { Config } from "./config.ts";

const quoted = (value: string): string => (/^[\w@./:-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`);

/**
 * What `npm start` tells the person who ran it, once it listens: where the console is, and the one
 * command that makes them the first owner of an organization (the CLI reaches this process through
 * the same PORT, ADMIN_PORT and DATA_DIR, so those it needs are written into the command when they
 * are not the defaults), and where the mails go when there is no SMTP server.
 */
export const firstSteps = (
  config: Pick<Config, "publicUrl" | "port" | "adminPort" | "dataDir" | "smtpUrl" | "organizationSignup">,
  cwd: string,
): string => {
  const env = [
    ...(config.port !== 3000 ? [`PORT=${config.port}`] : []),
    ...(config.adminPort !== config.port + 1 ? [`ADMIN_PORT=${config.adminPort}`] : []),
    ...(relative(cwd, config.dataDir) !== "data" ? [`DATA_DIR=${quoted(config.dataDir)}`] : []),
  ];
  const cli = `${env.length > 0 ? `${env.join(" ")} ` : ""}npm run -s cli --`;
  return [
    "",
    `Laurel is running. The console: ${config.publicUrl}/console`,
    "",
    "To become the first owner of an organization, run in another terminal (your own address):",
    `  ${cli} organizations create --name 'My organization' --email you@example.org --owner-email you@example.org`,
    `then open the invitation link it mails${config.smtpUrl ? "" : " (printed here)"} and sign in with that address.`,
    ...(config.organizationSignup === "open"
      ? ["Or sign in at the console and create an organization there (ORGANIZATION_SIGNUP=open)."]
      : []),
    config.smtpUrl
      ? "Mails are sent through SMTP_URL."
      : "No SMTP_URL: no mail leaves this machine; each one is printed here with its subject and links.",
    "",
  ].join("\n");
};
