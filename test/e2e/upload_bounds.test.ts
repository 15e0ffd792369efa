import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import t from "tap";
import { createTemplate, organization } from "../support/badges.ts";
import { signedInMember } from "../support/console.ts";
import { spawnServer, startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * Uploads against a separate API process (as in production) whose resident memory is read while
 * they run: anonymous 47 MiB multipart bodies are answered before they are read, a CSV record of
 * millions of empty cells is refused naming its row, a form must begin with its CSRF token, and
 * past `UPLOADS_IN_FLIGHT` an upload is answered 503 with Retry-After, unread.
 */
const BOUND_MIB = 64;
const MIB = 1024 * 1024;

const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

let api: Awaited<ReturnType<typeof spawnServer>>;
t.before(async () => {
  const laurel = mailed.laurel;
  api = await spawnServer({
    DATABASE_URL: laurel.database?.url ?? "",
    NATS_URL: laurel.nats.url,
    DATA_DIR: laurel.dataDir,
    UPLOADS_IN_FLIGHT: "1",
    SMTP_URL: mailed.smtp.url,
  });
});
t.teardown(() => api?.stop());

/** Resident memory of the API process, from the kernel's accounting. */
const rssBytes = (): number => {
  const status = readFileSync(`/proc/${api.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
};

/** The API process's largest growth while `run` runs, in MiB. */
const growthWhile = async (run: () => Promise<void>): Promise<number> => {
  const baseline = rssBytes();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes());
  }, 20);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssBytes());
  return (peak - baseline) / MIB;
};

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /**
   * Body bytes the client's socket took before the answer came: what the server read, and what
   * the kernel's buffers hold between the two (up to tens of MiB on loopback).
   */
  written: number;
}

/**
 * POSTs `bytes` of body (a multipart form whose file part is filled with `x`, or text) over its own
 * connection, in 64 KiB writes that wait for the socket, and stops writing once the answer comes:
 * what a client that cannot be stopped any other way sends.
 */
const sendLarge = (
  path: string,
  opts: { bytes: number; headers?: Record<string, string>; head?: string; tail?: string; pauseAt?: number },
): { answer: Promise<Sent>; resume(): void } => {
  let resume = () => {};
  const answer = new Promise<Sent>((resolve, reject) => {
    const head = Buffer.from(opts.head ?? "");
    const tail = Buffer.from(opts.tail ?? "");
    const fill = opts.bytes - head.length - tail.length;
    const req = httpRequest(`${api.origin}${path}`, {
      method: "POST",
      headers: { ...opts.headers, "content-length": String(opts.bytes) },
    });
    let answered = false;
    let written = 0;
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), written });
        req.destroy();
      });
    });
    // The server closes the connection under a body it does not read, once it has answered.
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, "x");
    const write = async () => {
      req.write(head);
      written += head.length;
      let left = fill;
      while (left > 0 && !answered && !req.destroyed) {
        if (opts.pauseAt !== undefined && written >= opts.pauseAt) {
          await new Promise<void>((r) => (resume = r));
          opts.pauseAt = undefined;
        }
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        written += piece.length;
        if (!req.write(piece))
          await new Promise<void>((r) => {
            const go = () => {
              req.off("drain", go).off("close", go);
              r();
            };
            req.once("drain", go).once("close", go);
          });
      }
      if (!answered && !req.destroyed) req.end(tail);
    };
    write().catch(reject);
  });
  return { answer, resume: () => resume() };
};

const BOUNDARY = "----laurelbound";
const multipartHead = (fields: Record<string, string>, fileField: string, fileName: string) =>
  `${Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join(
      "",
    )}--${BOUNDARY}\r\ncontent-disposition: form-data; name="${fileField}"; filename="${fileName}"\r\ncontent-type: application/octet-stream\r\n\r\n`;
const multipartTail = `\r\n--${BOUNDARY}--\r\n`;
const MULTIPART = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

/** What a client sends: a 47 MiB multipart body, its file part named as the import form names it. */
const anonymous47 = (path: string) =>
  sendLarge(path, {
    bytes: 47 * MIB,
    headers: MULTIPART,
    head: multipartHead({ kind: "badges" }, "file", "big.csv"),
    tail: multipartTail,
  }).answer;

const nobody = "0190a0d8-0000-7000-8000-000000000000";

t.test("six anonymous 47 MiB multipart bodies at once are answered unread", async (t) => {
  const path = `/console/${nobody}/imports`;
  // Warm: the route's code is loaded before the baseline.
  await sendLarge(path, { bytes: 4096, headers: MULTIPART }).answer;
  let answers: Sent[] = [];
  const grown = await growthWhile(async () => {
    answers = await Promise.all(Array.from({ length: 6 }, () => anonymous47(path)));
  });
  for (const a of answers) {
    t.equal(a.status, 303, "sent to sign in");
    t.match(a.headers.location, /^\/sign_in\?next=/);
  }
  t.ok(grown < BOUND_MIB, `the API process grew by ${grown.toFixed(1)} MiB (< ${BOUND_MIB} MiB)`);
});

t.test("every other upload route answers an anonymous 47 MiB body unread", async (t) => {
  const paths = [
    `/console/${nobody}/templates`,
    `/console/${nobody}/templates/${nobody}`,
    `/console/${nobody}/profile/image`,
    "/wallet/external_badges/image",
  ];
  for (const path of paths) {
    let answer: Sent | null = null;
    const grown = await growthWhile(async () => {
      answer = await anonymous47(path);
    });
    t.equal((answer as Sent | null)?.status, 303, `${path}: sent to sign in`);
    t.ok(grown < BOUND_MIB, `${path}: the API process grew by ${grown.toFixed(1)} MiB`);
  }
});

t.test("a member's form must begin with its CSRF token: without it, 403 before the file is read", async (t) => {
  const org = await organization(mailed.laurel, "Upload Bounds Org");
  const earner = await signedInMember(mailed.laurel, mailed.smtp, org.id, "bounds-owner@example.org", "owner");
  await earner.get(`/console/${org.id}/imports`);
  const cookie = [...earner.cookies()].map(([k, v]) => `${k}=${v}`).join("; ");
  const headers = { ...MULTIPART, cookie, origin: api.origin };
  const cases: Array<[string, Record<string, string>]> = [
    ["no token", { kind: "badges" }],
    ["a wrong token", { _csrf: "not-the-token", kind: "badges" }],
    ["the token after another field", { kind: "badges", _csrf: earner.csrfToken() ?? "" }],
  ];
  for (const [name, fields] of cases) {
    let sent: Sent | null = null;
    const grown = await growthWhile(async () => {
      sent = await sendLarge(`/console/${org.id}/imports`, {
        bytes: 40 * MIB,
        headers,
        head: multipartHead(fields, "file", "people.csv"),
        tail: multipartTail,
      }).answer;
    });
    const answer = sent as unknown as Sent;
    t.equal(answer.status, 403, `${name}: refused`);
    t.match(answer.body, /This form has expired/);
    t.ok(grown < BOUND_MIB, `${name}: the file was not read (the process grew by ${grown.toFixed(1)} MiB)`);
  }
  // An issuer may import badges, not employee records: refused from the fields before the file.
  const issuer = await signedInMember(mailed.laurel, mailed.smtp, org.id, "bounds-issuer@example.org", "issuer");
  await issuer.get(`/console/${org.id}/imports`);
  const refused = await sendLarge(`/console/${org.id}/imports`, {
    bytes: 40 * MIB,
    headers: {
      ...MULTIPART,
      cookie: [...issuer.cookies()].map(([k, v]) => `${k}=${v}`).join("; "),
      origin: api.origin,
    },
    head: multipartHead({ _csrf: issuer.csrfToken() ?? "", kind: "employees" }, "file", "people.csv"),
    tail: multipartTail,
  }).answer;
  t.equal(refused.status, 403, "an issuer's employee import is refused");
  t.match(refused.body, /does not allow you to import employees/);
});

t.test("a CSV record of five million empty cells is refused naming its row, within the memory bound", async (t) => {
  const org = await organization(mailed.laurel, "Wide Rows Org");
  const template = (await createTemplate(mailed.laurel, org)).id;
  const header = "badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at";
  const post = async (csv: string) => {
    const res = await fetch(`${api.origin}/v1/organizations/${org.id}/badges/imports?dry_run=true`, {
      method: "POST",
      headers: { authorization: org.auth, "content-type": "text/csv" },
      body: csv,
    });
    return { status: res.status, body: await res.json() };
  };
  const warm = await post(`${header}\n${template},a@example.org,Ada,L,2024-03-01\n`);
  t.equal(warm.status, 200, JSON.stringify(warm.body));
  const commas = ",".repeat(5_000_000);
  for (const [name, csv, row] of [
    ["the header", `${commas}\n`, /The header row has more than \d+ cells/],
    ["row 1", `${header}\n${template}${commas}\n`, /Row 1 has more than \d+ cells/],
    [
      "row 2",
      `${header}\n${template},a@example.org,Ada,L,2024-03-01\n"${"y".repeat(70_000)}"\n`,
      /Row 2 is longer than 64 KiB/,
    ],
  ] as const) {
    let answer: { status: number; body: { data: { message: string; errors: Array<{ field: string }> } } } | null = null;
    const grown = await growthWhile(async () => {
      answer = await post(csv);
    });
    const a = answer as unknown as {
      status: number;
      body: { data: { message: string; errors: Array<{ field: string }> } };
    };
    t.equal(a.status, 422, `${name}: refused`);
    t.match(a.body.data.message, row, `${name}: the answer names the row`);
    t.equal(a.body.data.errors[0]?.field, "file");
    t.ok(grown < BOUND_MIB, `${name}: the API process grew by ${grown.toFixed(1)} MiB (< ${BOUND_MIB} MiB)`);
  }
});

t.test("past UPLOADS_IN_FLIGHT an upload is answered 503 with Retry-After, unread; then it goes through", async (t) => {
  const org = await organization(mailed.laurel, "Busy Uploads Org");
  const template = (await createTemplate(mailed.laurel, org)).id;
  const csv = `badge_template_id,recipient_email,issued_to_first_name,issued_to_last_name,issued_at\n${template},slow@example.org,Ada,L,2024-03-01\n`;
  const path = `/v1/organizations/${org.id}/badges/imports?dry_run=true`;
  const headers = { authorization: org.auth, "content-type": "text/csv" };
  // The one slot is held by an upload that has sent part of its body and waits.
  const slow = sendLarge(path, { bytes: 2 * MIB, headers, head: csv, tail: "\n", pauseAt: 256 * 1024 });
  await new Promise((r) => setTimeout(r, 300));
  // Another process's worth of people, sent while the slot is taken: the slots are the process's.
  const busy = await sendLarge(`/v1/organizations/${org.id}/employees/imports`, {
    bytes: 40 * MIB,
    headers,
    head: "external_id,email,first_name,last_name\n",
  }).answer;
  t.equal(busy.status, 503, busy.body);
  t.ok(Number(busy.headers["retry-after"]) >= 1, `Retry-After: ${busy.headers["retry-after"]}`);
  t.match(JSON.parse(busy.body), { data: { code: "unavailable", message: /Too many uploads/ } });
  t.ok(busy.written < 40 * MIB, `answered before its body was sent (${(busy.written / MIB).toFixed(1)} MiB of 40)`);
  slow.resume();
  // The slow one's file ends in a cell of two million x: one record past the bound, named by its row.
  const done = await slow.answer;
  t.equal(done.status, 422, done.body);
  t.match(JSON.parse(done.body).data.message, /Row 2 is longer than 64 KiB/);
  const res = await fetch(`${api.origin}${path}`, { method: "POST", headers, body: csv });
  t.equal(res.status, 200, "the slot is free again once the slow upload was answered");
});
