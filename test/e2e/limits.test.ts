import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import t, { type Test } from "tap";
import { loadAdminToken } from "../../apps/admin_token.ts";
import { apiClient, createTemplate, eventRows, eventually, issueBody, organization } from "../support/badges.ts";
import { basic, startLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";

const laurel = await startLaurel({
  env: {
    RATE_LIMITS: "on",
    // The test talks to the server from 127.0.0.1, as the balancer would: X-Forwarded-For names the client.
    TRUST_PROXY: "127.0.0.1",
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

/** A token request of `client` through the balancer (127.0.0.1, trusted). */
const tokenFrom = (client: string, body: string) =>
  tokenRequest(body, "application/x-www-form-urlencoded", { "x-forwarded-for": client });

/** Failures counted in the shared counter under `key` (`ip:...`, `client:...`). */
const failures = async (key: string): Promise<number> =>
  Number(
    (
      await laurel.db.all<{ hits: number }>("select hits from rate_limit_counters where key = ?", [
        `shared:auth-failures:${key}`,
      ])
    )[0]?.hits ?? 0,
  );

/**
 * Sends a request expected to fail authentication and waits until the failure is counted under
 * `key`, in the shared counter and then in this process (a 401 is counted after it is answered).
 */
const failCounted = async (key: string, send: () => Promise<Response>): Promise<number> => {
  const before = await failures(key);
  const res = await send();
  await res.arrayBuffer();
  if (res.status !== 429) {
    await eventually(async () => ((await failures(key)) > before ? true : undefined));
    await new Promise((r) => setTimeout(r, 20));
  }
  return res.status;
};

/** A request straight from `localAddress` (a peer that is not the trusted balancer). */
const fromPeer = (localAddress: string, path: string, headers: Record<string, string>, body: string) =>
  new Promise<number>((resolve, reject) => {
    const { hostname, port } = new URL(laurel.origin);
    const req = httpRequest(
      {
        host: hostname,
        port,
        path,
        method: "POST",
        localAddress,
        headers: { ...headers, "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });

/** The sign-in form sent by `client` through the balancer; the status of the answer. */
const signInFrom = async (client: string, email: string): Promise<number> => {
  const page = await fetch(`${laurel.origin}/sign_in`, { headers: { "x-forwarded-for": client } });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const res = await fetch(`${laurel.origin}/sign_in`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: laurel.origin,
      cookie,
      "x-forwarded-for": client,
    },
    body: new URLSearchParams({ email, _csrf: csrf }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
};

const org = await organization(laurel, "Limits");
const newApp = async (name: string) =>
  (await api("POST", `/organizations/${org.id}/oauth_applications`, org.auth, { name })).body.data;
const app = await newApp("limits");
const busy = await newApp("busy");
const grants = await newApp("grants");

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

t.test("a client id that failed too often refuses the addresses that failed, and serves a clean one", async (t) => {
  // Another API process already counted failures for this client id.
  await laurel.db.all(
    "insert into rate_limit_counters (key, hits, window_ends_at) values (?, 100, now() + interval '1 minute')",
    [`shared:auth-failures:client:${app.uid}`],
  );
  const guesser = "203.0.113.10";
  const wrong = await failCounted(`ip:${guesser}`, () =>
    tokenFrom(
      guesser,
      `grant_type=client_credentials&scope=oauth_applications&client_id=${app.uid}&client_secret=wrong`,
    ),
  );
  t.equal(wrong, 401, "this process evaluates the attempt, counts it and learns the client id's total");
  const right = `grant_type=client_credentials&scope=oauth_applications&client_id=${app.uid}&client_secret=${app.secret}`;
  await assertTooMany(t, await tokenFrom(guesser, right), "the right secret from the address that failed");
  const clean = await tokenFrom("203.0.113.11", right);
  t.equal(clean.status, 200, "the right secret from an address with no failure is served");
  t.type(((await clean.json()) as { access_token: string }).access_token, "string");
});

t.test("a valid token from a clean address is served while another address is locked out", async (t) => {
  const locked = "203.0.113.20";
  const statuses: number[] = [];
  for (let i = 0; i < 8 && statuses.at(-1) !== 429; i++) {
    const bogus = { authorization: basic(`bogus-${i}`), "x-forwarded-for": locked };
    statuses.push(await failCounted(`ip:${locked}`, () => fetch(`${laurel.baseUrl}${org.badges}`, { headers: bogus })));
  }
  t.equal(statuses.at(-1), 429, `locked out after ${statuses.length - 1} failures`);
  const list = (client: string) =>
    fetch(`${laurel.baseUrl}${org.badges}`, { headers: { authorization: org.auth, "x-forwarded-for": client } });
  await assertTooMany(t, await list(locked), "the valid token from the locked-out address");
  t.equal((await list("203.0.113.21")).status, 200, "the same valid token from a clean address");
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

t.test("behind the trusted balancer, two X-Forwarded-For clients are limited separately", async (t) => {
  const body = `grant_type=client_credentials&scope=oauth_applications&client_id=${busy.uid}&client_secret=${busy.secret}`;
  let res: Response | undefined;
  for (let i = 0; i < 10 && res?.status !== 429; i++) {
    res = await tokenFrom("198.51.100.1, 203.0.113.30", body);
    if (res.status !== 429) await res.arrayBuffer();
  }
  await assertTooMany(t, res as Response, "token requests of one client");
  const other = await tokenFrom("203.0.113.31", body);
  t.equal(other.status, 200, "another client is not held back");
  const spoofed = await tokenFrom("203.0.113.31, 203.0.113.30", body);
  await assertTooMany(t, spoofed, "the address the balancer added decides, not what the client wrote before it");

  // Sign-in links: 20 per client, 5 per address asked for, whoever asks.
  const asker = "203.0.113.40";
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push(await signInFrom(asker, `junk-${i}@example.org`));
  t.same(statuses.slice(0, 20), Array(20).fill(200), "20 links to a client");
  t.equal(statuses[20], 429, "the 21st is refused");
  t.equal(await signInFrom("203.0.113.41", "someone@example.org"), 200, "another client still signs in");
  const target = "flooded@example.org";
  const perAddress: number[] = [];
  for (let i = 0; i < 6; i++) perAddress.push(await signInFrom(`203.0.113.${50 + i}`, target));
  t.same(perAddress, [200, 200, 200, 200, 200, 429], "5 links to one address, from any clients");
});

t.test("X-Forwarded-For from a peer that is not the balancer is ignored", async (t) => {
  // 127.0.0.2 is this machine too, but not the trusted 127.0.0.1: it is the client, whatever it claims.
  const body = `grant_type=client_credentials&scope=oauth_applications&client_id=${busy.uid}&client_secret=${busy.secret}`;
  const headers = { "content-type": "application/x-www-form-urlencoded" };
  const statuses: number[] = [];
  for (let i = 0; i < 10 && statuses.at(-1) !== 429; i++) {
    const path = new URL(tokenUrl).pathname;
    statuses.push(await fromPeer("127.0.0.2", path, { ...headers, "x-forwarded-for": `192.0.2.${i}` }, body));
  }
  t.same(statuses, [...Array(8).fill(200), 429], "one client, limited after 8 requests whatever the header says");
});

t.test("failures on the authorization code and refresh token grants are counted and refused", async (t) => {
  const codeGuesser = "203.0.113.60";
  const guess = (i: number) =>
    new URLSearchParams({
      grant_type: "authorization_code",
      code: `guessed-code-${i}`,
      redirect_uri: "http://127.0.0.1:9/callback",
      code_verifier: "v".repeat(43),
      client_id: grants.uid,
      client_secret: grants.secret,
    }).toString();
  const codes: number[] = [];
  for (let i = 0; i < 8 && codes.at(-1) !== 429; i++) {
    codes.push(await failCounted(`ip:${codeGuesser}`, () => tokenFrom(codeGuesser, guess(i))));
  }
  t.same(codes, [400, 400, 400, 400, 429], "unknown codes count against the address; over 3, refused");

  const refreshGuesser = "203.0.113.61";
  const refresh = (i: number) =>
    `grant_type=refresh_token&refresh_token=guessed-${i}&client_id=${grants.uid}&client_secret=${grants.secret}`;
  const refreshes: number[] = [];
  for (let i = 0; i < 8 && refreshes.at(-1) !== 429; i++) {
    refreshes.push(await failCounted(`ip:${refreshGuesser}`, () => tokenFrom(refreshGuesser, refresh(i))));
  }
  t.same(refreshes, [400, 400, 400, 400, 429], "unknown refresh tokens likewise");

  const secretGuesser = "203.0.113.62";
  const wrongSecret = (i: number) =>
    `grant_type=refresh_token&refresh_token=r&client_id=${busy.uid}&client_secret=wrong-${i}`;
  const before = await failures(`client:${busy.uid}`);
  const secrets: number[] = [];
  for (let i = 0; i < 8 && secrets.at(-1) !== 429; i++) {
    secrets.push(await failCounted(`ip:${secretGuesser}`, () => tokenFrom(secretGuesser, wrongSecret(i))));
  }
  t.same(secrets, [401, 401, 401, 401, 429], "a wrong client secret in the body, refused like client_credentials");
  t.equal(await failures(`client:${busy.uid}`), before + 4, "and counted against the client id");
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
