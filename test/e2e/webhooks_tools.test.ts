import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";
import { basic } from "../support/laurel.ts";
import { runTs, startTs } from "../support/processes.ts";
import { tempDir } from "../support/services.ts";
import { makeTestCa, startReceiver, waitFor } from "../support/webhooks.ts";

/**
 * `npm start` on PGlite with its in-process relay and workers, set up with the admin CLI as an
 * operator would: a badge issued over REST reaches the HTTPS receiver, signed; then the operator
 * tools list, rotate and redeliver.
 */
t.test("npm start: CLI webhook settings, a badge issued, delivered, listed and redelivered", async (t) => {
  const ca = makeTestCa();
  const receiver = await startReceiver(ca);
  const dir = tempDir();
  const port = await freePort();
  const adminPort = await freePort();
  const origin = `http://localhost:${port}`;
  const adminOrigin = `http://localhost:${adminPort}`;
  const server = await startTs(
    "apps/start.ts",
    {
      DATA_DIR: dir.path,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      DATABASE_URL: "",
      NATS_URL: "",
      LOG_LEVEL: "info",
      WEBHOOK_CA_FILE: ca.caFile,
      WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
      WEBHOOK_SCHEDULER_INTERVAL_MS: "100",
    },
    (out) => out.includes("Laurel listening"),
  );
  t.teardown(async () => {
    await server.stop();
    await receiver.close();
    dir.remove();
    ca.remove();
  });
  const cli = async (...args: string[]) => {
    const r = await runTs("apps/cli.ts", [...args, "--json"], { LAUREL_URL: adminOrigin, DATA_DIR: dir.path });
    if (r.code !== 0) throw new Error(`cli ${args.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  const created = await cli("organizations", "create", "--name", "Hooked Inc", "--email", "hooks@example.org");
  const org = created.organization.id as string;
  const auth = basic(created.authorization_token.token);
  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}/v1/organizations/${org}${path}`, {
      method,
      headers: { authorization: auth, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { data: { id: string | number } } };
  };
  const app = (await rest("POST", "/oauth_applications", { name: "Data services" })).body.data;

  t.same(
    await cli(
      "oauth-applications",
      "data-services",
      "--organization",
      org,
      "--application",
      String(app.id),
      "--enable",
    ),
    {
      organization_id: org,
      application_id: app.id,
      name: "Data services",
      data_services_enabled: true,
    },
  );
  t.same(
    await cli(
      "webhooks",
      "set",
      "--organization",
      org,
      "--url",
      receiver.url,
      "--events",
      "badge.created,badge.state.changed",
    ),
    { organization_id: org, webhook_url: receiver.url, event_types: ["badge.created", "badge.state.changed"] },
  );
  const { secret } = await cli("webhooks", "secret", "--organization", org);
  t.match(secret, /^whsec_/);
  const refused = await runTs(
    "apps/cli.ts",
    ["webhooks", "set", "--organization", org, "--url", "http://example.com/x"],
    {
      LAUREL_URL: adminOrigin,
      DATA_DIR: dir.path,
    },
  );
  t.equal(refused.code, 1, "an http:// URL is refused");
  t.match(refused.stderr, /UNPROCESSABLE_CONTENT/);
  t.match(refused.stderr, /\n {2}webhook_url: \S/, "the CLI names the field and why");
  const closed = `http://127.0.0.1:${await freePort()}`;
  const nobody = await runTs("apps/cli.ts", ["webhooks", "show", "--organization", org], {
    LAUREL_URL: closed,
    DATA_DIR: dir.path,
  });
  t.equal(nobody.code, 1, "no server there: exit 1");
  t.equal(
    nobody.stderr.trim(),
    `Cannot reach Laurel at ${closed} (ECONNREFUSED): is it running? LAUREL_URL names another server.`,
    "the CLI says which server it could not reach and why",
  );

  // The badges feature records events; the in-process relay and worker post them.
  const template = await rest("POST", "/badge_templates", { name: "Rust", description: "Safe code", state: "active" });
  t.equal(template.status, 201);
  const issued = await rest("POST", "/badges", {
    badge_template_id: template.body.data.id,
    issued_at: "2024-03-01T10:00:00+01:00",
    issued_to_first_name: "Ada",
    issued_to_last_name: "Lovelace",
    recipient_email: "ada@example.org",
  });
  t.equal(issued.status, 201);
  await waitFor("the webhook", () => receiver.received.length >= 1, 20_000);
  const got = receiver.received[0];
  t.equal(got?.json.event_type, "badge.created", "only the chosen kind (not badge_template.created)");
  t.same(receiver.verify([secret]), []);
  const eventId = got?.json.id as string;
  const detail = await fetch(`${origin}/v1/organizations/${org}/events/${eventId}`, {
    headers: { authorization: auth },
  });
  t.equal(
    ((await detail.json()) as { data: { badge: { id: string } } }).data.badge.id,
    issued.body.data.id,
    "the receiver can fetch the detail",
  );

  const deliveries = await waitFor("the delivery record", async () => {
    const d = await cli("webhooks", "deliveries", "--organization", org);
    return d.data[0]?.status === "succeeded" ? d : undefined;
  });
  t.match(deliveries.data[0], { event_id: eventId, status: "succeeded", attempts_count: 1 });
  const attempts = await cli("webhooks", "attempts", "--organization", org, "--event", eventId);
  t.match(attempts.data, [{ attempt_number: 1, status_code: 200, outcome: "succeeded" }]);

  const rotated = await cli("webhooks", "secret", "--organization", org, "--rotate");
  t.equal(rotated.previous_secret, secret);
  t.not(rotated.secret, secret);
  const again = await cli("webhooks", "redeliver", "--organization", org, "--event", eventId);
  t.match(again, { event_id: eventId, status: "pending" });
  await waitFor("the redelivery", () => receiver.received.length >= 2, 20_000);
  t.equal(receiver.received[1]?.headers["webhook-id"], eventId, "the same webhook-id");
  t.equal(String(receiver.received[1]?.headers["webhook-signature"]).split(" ").length, 2, "signed with both secrets");
  t.same(receiver.verify([rotated.secret], receiver.received.slice(1)), [], "verifies with the new secret");
  t.same(receiver.verify([secret], receiver.received.slice(1)), [], "and with the old one");
  t.same(await cli("webhooks", "redeliver-failed", "--organization", org, "--since", "2020-01-01"), { redelivered: 0 });

  const metrics = await (await fetch(`${adminOrigin}/metrics`)).text();
  t.match(metrics, /laurel_events_recorded_total [2-9]/, "events recorded (template and badge)");
  t.match(metrics, /laurel_webhook_attempts_total\{outcome="succeeded"\} 2/);
  t.match(
    metrics,
    /laurel_webhook_not_posted_total\{reason="not_subscribed"\} [1-9]/,
    "badge_template.created was not posted",
  );
  t.match(metrics, /laurel_webhook_delivery_lag_seconds_bucket/);
});
