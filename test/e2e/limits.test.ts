import { connect } from "node:net";
import t, { type Test } from "tap";
import { loadAdminToken } from "../../apps/admin_token.ts";
import { apiClient, createTemplate, eventRows, eventually, issueBody, organization } from "../support/badges.ts";
import { basic, startLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";

const laurel = await startLaurel({
  env: {
    RATE_LIMITS: "on",
    HTTP_REQUEST_TIMEOUT_MS: "1500",
    RATE_LIMIT_TOKEN_PER_MINUTE: "8",
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "3",
    RATE_LIMIT_ISSUE_PER_MINUTE: "2",
    RATE_LIMIT_ADMIN_PER_MINUTE: "12",
    MAIL_PER_ORGANIZATION_PER_HOUR: "1",
  },
});
t.teardown(() => laurel.close());
const api = apiClient(laurel);
const tokenUrl = `${laurel.authUrl}/oauth/token`;

const tokenRequest = (body: string, type = "application/x-www-form-urlencoded", headers: Record<string, string> = {}) =>
  fetch(tokenUrl, { method: "POST", headers: { "content-type": type, ...headers }, body });

/** The 429 every limit answers: Retry-After and the API's error body. */
const assertTooMany = async (t: Test, res: Response, what: string) => {
  t.equal(res.status, 429, what);
  t.ok(Number(res.headers.get("retry-after")) >= 1, `${what}: Retry-After ${res.headers.get("retry-after")}`);
  const body = (await res.json()) as { data: { code: string; message: string }; metadata: object };
  t.equal(body.data.code, "rate_limited");
  t.type(body.data.message, "string");
  t.same(body.metadata, {});
};

const org = await organization(laurel, "Limits");
const newApp = async (name: string) =>
  (await api("POST", `/organizations/${org.id}/oauth_applications`, org.auth, { name })).body.data;
const app = await newApp("limits");
const busy = await newApp("busy");

t.test("the token endpoint refuses bodies over 16 KiB in any encoding and overlong client ids", async (t) => {
  const json = await tokenRequest(
    JSON.stringify({ grant_type: "client_credentials", pad: "x".repeat(17_000) }),
    "application/json",
  );
  t.equal(json.status, 413);
  t.equal(((await json.json()) as { error: string }).error, "invalid_request");
  const form = await tokenRequest(`grant_type=client_credentials&pad=${"x".repeat(17_000)}`);
  t.equal(form.status, 413);
  t.equal(((await form.json()) as { error: string }).error, "invalid_request");
  const long = await tokenRequest(
    `grant_type=client_credentials&scope=oauth_applications&client_id=${"c".repeat(5000)}&client_secret=s`,
  );
  t.equal(long.status, 401);
  t.equal(((await long.json()) as { error: string }).error, "invalid_client");
});

t.test("failed authentications per client id are counted across processes and refused", async (t) => {
  // Another API process already counted failures for this client id.
  await laurel.db.all(
    "insert into rate_limit_counters (key, hits, window_ends_at) values (?, 100, now() + interval '1 minute')",
    [`shared:auth-failures:client:${app.uid}`],
  );
  const wrong = await tokenRequest(
    `grant_type=client_credentials&scope=oauth_applications&client_id=${app.uid}&client_secret=wrong`,
  );
  t.equal(wrong.status, 401, "this process evaluates the attempt, counts it and learns the total");
  const right = await tokenRequest(
    `grant_type=client_credentials&scope=oauth_applications&client_id=${app.uid}&client_secret=${app.secret}`,
  );
  await assertTooMany(t, right, "even the right secret, while the client id is refused");
});

t.test("the token endpoint takes a limited number of requests per client address", async (t) => {
  let res: Response | undefined;
  for (let i = 0; i < 10; i++) {
    res = await tokenRequest(
      `grant_type=client_credentials&scope=oauth_applications&client_id=${busy.uid}&client_secret=${busy.secret}`,
    );
    if (res.status === 429) break;
  }
  await assertTooMany(t, res as Response, "token endpoint");
});

t.test("badge issuing per organization, and the organization's mail budget", async (t) => {
  const template = await createTemplate(laurel, org);
  const first = await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: "a@example.org" }));
  const second = await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: "b@example.org" }));
  t.equal(first.status, 201);
  t.equal(second.status, 201);
  const third = await fetch(`${laurel.baseUrl}${org.badges}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "application/json" },
    body: JSON.stringify(issueBody(template.id, { recipient_email: "c@example.org" })),
  });
  await assertTooMany(t, third, "third badge in a minute");
  // Another organization is not held back by the first one's limit.
  const other = await organization(laurel, "Other");
  const otherTemplate = await createTemplate(laurel, other);
  t.equal((await api("POST", other.badges, other.auth, issueBody(otherTemplate.id))).status, 201);
  // One notification an hour: the first badge's mail went, the second's did not.
  await eventually(async () => (await eventRows(laurel, org.id, "pending_badge_notification.no_user.sent"))[0]);
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await eventRows(laurel, org.id, "pending_badge_notification.no_user.sent")).length, 1);
});

t.test("the admin listener: alone serving /trpc and /metrics, its requests limited", async (t) => {
  t.equal((await fetch(`${laurel.origin}/trpc/organizations.list`)).status, 404, "not on the public listener");
  t.equal((await fetch(`${laurel.origin}/metrics`)).status, 404);
  t.equal((await fetch(`${laurel.adminOrigin}/healthz`)).status, 200, "health on both");
  t.equal((await fetch(`${laurel.origin}/healthz`)).status, 200);
  const list = () =>
    fetch(`${laurel.adminOrigin}/trpc/organizations.list?input=${encodeURIComponent("{}")}`, {
      headers: { authorization: `Bearer ${laurel.server.adminToken}` },
    });
  let res = await list();
  t.equal(res.status, 200);
  for (let i = 0; i < 14 && res.status === 200; i++) res = await list();
  await assertTooMany(t, res, "admin requests per address");
});

t.test("an admin token from the environment is at least 32 bytes", async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  t.throws(() => loadAdminToken("short-admin-token", dir.path), /at least 32 bytes/);
  t.equal(loadAdminToken("x".repeat(32), dir.path), "x".repeat(32));
});

t.test("a client trickling its body is cut off within the request timeout", async (t) => {
  const { port } = new URL(laurel.origin);
  const started = Date.now();
  const closed = await new Promise<{ ms: number; answer: string }>((resolve) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST ${new URL(laurel.baseUrl).pathname}/organizations/${org.id}/badges HTTP/1.1\r\nhost: x\r\n` +
          `authorization: ${org.auth}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`,
      );
    });
    let answer = "";
    const drip = setInterval(() => socket.writable && socket.write(" "), 200);
    socket.on("data", (c) => (answer += c.toString()));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(drip);
      resolve({ ms: Date.now() - started, answer });
    });
  });
  t.ok(closed.ms < 1500 + 1000, `closed after ${closed.ms} ms (timeout 1500 ms)`);
  t.ok(closed.ms >= 1000, "not before the timeout");
  t.match(closed.answer, /^(HTTP\/1.1 408|)/, "a 408 or a plain close");
});

t.test("failed authentications per client address: refused before the credentials are looked at", async (t) => {
  const hits = async (): Promise<number> =>
    Number(
      (
        await laurel.db.all<{ hits: number }>("select hits from rate_limit_counters where key = ?", [
          "shared:auth-failures:ip:127.0.0.1",
        ])
      )[0]?.hits ?? 0,
    );
  const statuses: number[] = [];
  for (let i = 0; i < 8 && statuses.at(-1) !== 429; i++) {
    const before = await hits();
    const status = (await api("GET", org.badges, basic(`not-a-token-${i}`))).status;
    statuses.push(status);
    // Each failure is counted after its answer went out, in the shared counter and then in this
    // process: the next attempt waits for both (a loaded machine can take longer than any fixed pause).
    if (status === 401) {
      await eventually(async () => ((await hits()) > before ? true : undefined));
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  // The limit is 3 a minute; the token endpoint's 401s above counted against this address too.
  t.ok(statuses.length >= 2 && statuses.length <= 5, `refused after ${statuses.length - 1} more failures`);
  t.same(new Set(statuses.slice(0, -1)), new Set([401]));
  t.equal(statuses.at(-1), 429);
  const res = await fetch(`${laurel.baseUrl}${org.badges}`, { headers: { authorization: org.auth } });
  await assertTooMany(t, res, "a valid token from the refused address");
  t.equal((await fetch(`${laurel.origin}/healthz`)).status, 200, "requests without credentials still go through");
  const image = await fetch(`${laurel.baseUrl}/obi/v2/images/default_badge.svg`, {
    headers: { authorization: org.auth },
  });
  t.equal(image.status, 200, "a hosted record, which never authenticates, is served even with credentials");
});
