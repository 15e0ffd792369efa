import { Webhook } from "standardwebhooks";
import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { basic } from "../support/laurel.ts";
import { runTs, startTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";
import { waitFor } from "../support/webhooks.ts";

/**
 * `WEBHOOK_DEV_RECEIVER` on `npm start`: with that one setting (no CA file, no allowed networks) a
 * webhook set to the printed address receives a badge's delivery over verified TLS, signed with the
 * organization's secret, and the terminal shows it plainly. Refused with NODE_ENV=production.
 */
t.test("npm start with WEBHOOK_DEV_RECEIVER: a badge's delivery reaches the printed receiver, signed", async (t) => {
  const dir = tempDir();
  const runtime = tempDir();
  const port = await freePort();
  let adminPort = await freePort();
  while (adminPort === port) adminPort = await freePort();
  let receiverPort = await freePort();
  while (receiverPort === port || receiverPort === adminPort) receiverPort = await freePort();
  const env = {
    DATA_DIR: dir.path,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DATABASE_URL: "",
    NATS_URL: "",
    LOG_LEVEL: "info",
    LAUREL_RUNTIME_DIR: runtime.path,
    WEBHOOK_SCHEDULER_INTERVAL_MS: "100",
    WEBHOOK_CA_FILE: "",
    WEBHOOK_ALLOWED_NETWORKS: "",
    WEBHOOK_DEV_RECEIVER: String(receiverPort),
  };

  const refused = await runTs("apps/start.ts", [], { ...env, NODE_ENV: "production" });
  t.equal(refused.code, 2, "refused in production");
  t.match(refused.stderr, /WEBHOOK_DEV_RECEIVER .* refused with NODE_ENV=production/);

  const server = await startTs(
    "apps/start.ts",
    env,
    (out) => out.includes("Laurel listening") && out.includes("Each delivery is printed here"),
  );
  t.teardown(async () => {
    await server.stop();
    dir.remove();
    runtime.remove();
  });
  const url = /Webhook receiver for trying \(WEBHOOK_DEV_RECEIVER\): (\S+)/.exec(server.output())?.[1] ?? "";
  t.equal(url, `https://localhost:${receiverPort}/`, "the terminal names the receiver's address");

  const cli = async (...args: string[]) => {
    const r = await runTs("apps/cli.ts", [...args, "--json"], { LAUREL_RUNTIME_DIR: runtime.path });
    if (r.code !== 0) throw new Error(`cli ${args.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const created = await cli("organizations", "create", "--name", "Trying Hooks", "--email", "hooks@example.org");
  const org = created.organization.id as string;
  const auth = basic(created.authorization_token.token);
  const rest = async (path: string, body: unknown) => {
    const res = await fetch(`http://localhost:${port}/v1/organizations/${org}${path}`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { data: { id: string | number } };
  };
  const app = (await rest("/oauth_applications", { name: "Data services" })).data;
  await cli("oauth-applications", "data-services", "--organization", org, "--application", String(app.id), "--enable");
  const set = await cli("webhooks", "set", "--organization", org, "--url", url, "--events", "all");
  t.equal(set.webhook_url, url, "the loopback address is accepted as the webhook");
  const { secret } = await cli("webhooks", "secret", "--organization", org);

  const template = (await rest("/badge_templates", { name: "Hooks", description: "Tried", state: "active" })).data;
  const badge = (
    await rest("/badges", {
      badge_template_id: template.id,
      issued_at: new Date().toISOString(),
      issued_to_first_name: "Ada",
      issued_to_last_name: "Lovelace",
      recipient_email: "ada@example.org",
      suppress_badge_notification_email: true,
    })
  ).data;

  const printed = await waitFor(
    "the delivery printed",
    () =>
      /── Webhook delivery to \S+: badge\.created (\S+) \(answered 200\)\n((?: {3}.*\n){4})/.exec(server.output()) ??
      undefined,
  );
  const [, eventId, block = ""] = printed;
  const lines = block.split("\n").map((l) => l.trim());
  const header = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
  const body = lines[3] ?? "";
  const summary = JSON.parse(body);
  t.match(summary, { id: eventId, organization_id: org, event_type: "badge.created" }, "the summary, printed whole");
  t.equal(header("webhook-id"), eventId);
  t.match(header("webhook-signature"), /^v1,/, "with its signature");
  t.doesNotThrow(
    () =>
      new Webhook(secret).verify(body, {
        "webhook-id": header("webhook-id"),
        "webhook-timestamp": header("webhook-timestamp"),
        "webhook-signature": header("webhook-signature"),
      }),
    "which verifies with the organization's secret",
  );
  const deliveries = await cli("webhooks", "deliveries", "--organization", org, "--event", eventId as string);
  t.match(JSON.stringify(deliveries), /succeeded/, "and the delivery is recorded as succeeded");
  t.ok(badge.id);
  t.equal(await server.stop(), 0, "stops cleanly, the receiver with it");
});
