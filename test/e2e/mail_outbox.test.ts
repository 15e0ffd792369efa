import t from "tap";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { postgresMailOutbox } from "../../adapters/db/mod.ts";
import { apiClient, createTemplate, eventRows, eventually, issueBody, organization } from "../support/badges.ts";
import { spawnServer, startLaurel } from "../support/laurel.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

const outboxRows = async (laurel: Awaited<ReturnType<typeof startLaurel>>) =>
  (await laurel.db.all("select kind, attempts, last_error, failed_at from mail_outbox order by created_at")) as Array<{
    kind: string;
    attempts: number;
    last_error: string | null;
    failed_at: Date | null;
  }>;

/**
 * The pending-badge notification is an outbox row written with the badge: an API process killed
 * right after its 201 loses no mail, since a worker (here the test's own process) sends it.
 */
t.test("an API process killed right after its 201 loses no notification", async (t) => {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const laurel = await startLaurel({ env: { SMTP_URL: sink.url } });
  t.teardown(() => laurel.close());
  const org = await organization(laurel, "Kill Org");
  const template = await createTemplate(laurel, org, { name: "Durable" });
  const api = await spawnServer({
    DATABASE_URL: laurel.database?.url as string,
    NATS_URL: laurel.nats.url,
    DATA_DIR: laurel.dataDir,
    SMTP_URL: sink.url,
  });
  t.teardown(async () => {
    if (api.child.exitCode === null && api.child.signalCode === null) await api.stop();
  });
  const res = await fetch(`${api.origin}/v1${org.badges}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "application/json" },
    body: JSON.stringify(issueBody(template.id, { recipient_email: "survivor@example.org" })),
  });
  api.child.kill("SIGKILL");
  t.equal(res.status, 201, "issued");
  await new Promise((resolve) => api.child.once("exit", resolve));
  const mail = await eventually(
    async () => sink.mails.find((m) => m.to.join().includes("survivor@example.org")),
    15_000,
  );
  t.match(mail.data, /Durable/, "the notification arrived");
  const [event] = await eventually(async () => {
    const rows = await eventRows(laurel, org.id, "pending_badge_notification.no_user.sent");
    return rows.length > 0 ? rows : undefined;
  });
  t.equal(event?.detail.recipient_email, "survivor@example.org", "and its event was recorded once accepted");
  t.same(await outboxRows(laurel), [], "the outbox is empty once sent");
});

t.test("transient SMTP failures are retried with backoff; a permanent one is recorded", async (t) => {
  // The first two messages get 451 (try later), any message to refused@ gets 550 (never).
  const sink = await startSmtpSink({
    answer: (n, mail) =>
      mail.to.join().includes("refused@") ? "550 no such user" : n <= 2 ? "451 try again later" : "250 queued",
  });
  t.teardown(() => sink.close());
  const laurel = await startLaurel({ env: { SMTP_URL: sink.url, MAIL_RETRY_BASE_MS: "200" } });
  t.teardown(() => laurel.close());
  const org = await organization(laurel, "Retry Org");
  const template = await createTemplate(laurel, org, { name: "Patience" });
  const api = apiClient(laurel);
  t.equal(
    (await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: "late@example.org" }))).status,
    201,
  );
  const mail = await eventually(async () => sink.mails.find((m) => m.to.join().includes("late@example.org")), 15_000);
  t.ok(mail, "delivered after two refusals");
  // Recorded once the server accepted the mail: a moment after the sink holds it.
  const recorded = await eventually(async () => {
    const rows = await eventRows(laurel, org.id, "pending_badge_notification.no_user.sent");
    return rows.length > 0 ? rows : undefined;
  });
  t.equal(recorded.length, 1, "one event");

  t.equal(
    (await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: "refused@example.org" })))
      .status,
    201,
  );
  const [failed] = await eventually(async () => {
    const rows = (await outboxRows(laurel)).filter((r) => r.failed_at !== null);
    return rows.length > 0 ? rows : undefined;
  }, 15_000);
  t.match(failed, { kind: "pending_badge_notification", attempts: 1, last_error: /550/ }, "failed for good at once");
  t.equal((await eventRows(laurel, org.id, "pending_badge_notification.no_user.sent")).length, 1, "no event for it");
  const metrics = await (await fetch(`${laurel.adminOrigin}/metrics`)).text();
  t.match(metrics, /laurel_mail_outbox\{status="failed"\} 1/, "operators see it in /metrics");
});

t.test("enqueue: a mail on its own is due at its creation time and sent by the sender", async (t) => {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const laurel = await startLaurel({ env: { SMTP_URL: sink.url } });
  t.teardown(() => laurel.close());
  const outbox = postgresMailOutbox(laurel.db);
  const message = (to: string) => ({
    template: "written" as const,
    to,
    subject: "Hello",
    text: "Plain words\n",
    html: "<p>Plain words</p>",
  });
  const later = new Date(Date.now() + 3_600_000);
  const laterId = uuidv7();
  await outbox.enqueue({
    id: laterId,
    kind: "sign_in_link",
    organization_id: null,
    content: message("later@example.org"),
    sent_event: null,
    created_at: later,
  });
  const [row] = (await laurel.db.all(
    "select kind, organization_id, content, sent_event, created_at, next_attempt_at, attempts from mail_outbox where id = ?",
    [laterId],
  )) as Array<Record<string, unknown>>;
  t.match(row, { kind: "sign_in_link", organization_id: null, sent_event: null, attempts: 0 });
  t.same(row?.content, message("later@example.org"));
  t.equal(new Date(row?.next_attempt_at as string).getTime(), later.getTime(), "due when created");
  t.equal(new Date(row?.created_at as string).getTime(), later.getTime());

  await outbox.enqueue({
    id: uuidv7(),
    kind: "employee_invitation",
    organization_id: null,
    content: message("now@example.org"),
    sent_event: null,
    created_at: new Date(),
  });
  const mail = await eventually(async () => sink.mails.find((m) => m.to.join().includes("now@example.org")));
  t.match(mail?.data, /Subject: Hello/);
  await eventually(async () => ((await outbox.counts()).pending === 1 ? true : undefined));
  t.same(await outbox.counts(), { pending: 1, failed: 0 }, "the sent one removed, the later one waits");
  t.notOk(
    sink.mails.some((m) => m.to.join().includes("later@example.org")),
    "not sent before it is due",
  );
});
