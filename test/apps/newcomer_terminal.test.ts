import t from "tap";
import { logMailer, readableMail } from "../../adapters/mail/mod.ts";
import { firstSteps } from "../../apps/first_steps.ts";

const DEFAULTS = {
  publicUrl: "http://localhost:3000",
  dataDir: "/home/ada/laurel/data",
  smtpUrl: undefined,
  organizationSignup: "closed" as const,
};

t.test("npm start says where the console is and how to become its first owner", (t) => {
  const text = firstSteps(DEFAULTS, "/home/ada/laurel");
  t.match(text, "The console: http://localhost:3000/console");
  t.match(
    text,
    "  npm run -s cli -- organizations create --name 'My organization' --email you@example.org --owner-email you@example.org\n",
    "the command as it runs",
  );
  t.match(text, "The CLI, run on this machine, finds this process by itself.\n", "no data directory to name");
  t.match(text, "open the invitation link it mails (printed here)");
  t.match(text, /No SMTP_URL: no mail leaves this machine; each one is printed here with its subject and links/);
  t.notMatch(text, /ORGANIZATION_SIGNUP/);

  const moved = firstSteps(
    {
      ...DEFAULTS,
      publicUrl: "http://localhost:4000",
      dataDir: "/tmp/my data",
      smtpUrl: "smtp://mail:25",
      organizationSignup: "open",
    },
    "/home/ada/laurel",
  );
  t.match(moved, "The console: http://localhost:4000/console");
  t.match(
    moved,
    "  npm run -s cli -- organizations create",
    "the same command: the CLI finds this process by its runtime file",
  );
  t.match(moved, "(with several running, name this one: DATA_DIR='/tmp/my data')", "and how to name it among several");
  t.match(moved, "Or sign in at the console and create an organization there");
  t.match(moved, "Mails are sent through SMTP_URL.");
  t.notMatch(moved, "(printed here)");
  t.end();
});

t.test("a mail without SMTP reads plainly: recipient, subject, each link on its own line", async (t) => {
  const text =
    "Ada, Acme issued you a badge: First steps.\n\nAccept it: http://localhost:3000/badges/0b6f/accept?token=a_b-c.\n(Or see https://example.org/about), and http://localhost:3000/badges/0b6f/accept?token=a_b-c again.";
  t.equal(
    readableMail({ to: "ada@example.org", subject: "Your badge: First steps", text }),
    [
      "── Mail to ada@example.org (not sent: no SMTP_URL) ──",
      "   Subject: Your badge: First steps",
      "   Links:",
      "     http://localhost:3000/badges/0b6f/accept?token=a_b-c",
      "     https://example.org/about",
      "",
    ].join("\n"),
  );
  t.match(readableMail({ to: "a@b.c", subject: "Hello", text: "No link here." }), "   No link.");

  const printed: string[] = [];
  const logged: object[] = [];
  const mailer = logMailer(
    () => ({ info: (o) => void logged.push(o) }),
    10,
    (s) => void printed.push(s),
  );
  await mailer.send({ to: "ada@example.org", subject: "Sign in", text: "Go: https://laurel.example/s?t=1", html: "" });
  t.match(printed[0], "     https://laurel.example/s?t=1\n", "printed for the terminal");
  t.match(logged[0], { mail: { to: "ada@example.org", subject: "Sign in" } }, "and logged whole");
  t.end();
});
