import { createHash } from "node:crypto";
import { createWriteStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import extractChunks from "png-chunks-extract";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { launchChromium, screenshots, seriousViolations } from "../support/browser.ts";
import { earnerFlows } from "../support/earner_flows.ts";
import { spawnServer, startLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";
import { zipEntries } from "../support/zip_entries.ts";

/**
 * The earner's export: "Download everything" on the account page queues an export; a worker
 * (beside the API, here in the test's process) writes the ZIP and mails its link; the link
 * downloads it from a separate API process whose resident memory is watched while a wallet of
 * 1,000 badges streams out; the entries are listed and checked; the link is refused once expired.
 */
const smtp = await startSmtpSink();
const laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
const dir = tempDir();
const api = await spawnServer({
  DATABASE_URL: laurel.database?.url ?? "",
  NATS_URL: laurel.nats.url,
  DATA_DIR: laurel.dataDir,
});
const browser = await launchChromium();
t.teardown(async () => {
  await browser.close();
  await api.stop();
  await laurel.close();
  await smtp.close();
  dir.remove();
});
const flows = earnerFlows(() => ({ origin: api.origin, smtp }));
const rest = apiClient(laurel);

/** Resident memory of the API process, from the kernel's accounting. */
const rssBytes = (): number => {
  const status = readFileSync(`/proc/${api.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
};

const COUNT = 1_000;

t.test("a wallet of 1,000 badges exports as a streamed ZIP, by a mailed link that expires", async (t) => {
  const org = await organization(laurel, "Export Academy");
  const template = await createTemplate(laurel, org, { name: "Marathon", allow_duplicate_badges: true });
  const page = await flows.signIn(await browser.newContext(), "ada@example.org");
  for (let i = 0; i < COUNT / 100; i++) {
    const batch = Array.from({ length: 100 }, () => issueBody(template.id));
    const res = await rest("POST", `${org.badges}/batch`, org.auth, { badges: batch });
    t.equal(res.status, 201, `batch ${i} issued`);
  }
  const user = await laurel.db.one<{ user_id: string }>("select user_id from user_emails where email = ?", [
    "ada@example.org",
  ]);
  // Accepting a thousand badges one by one is the pages' subject elsewhere: here they are set accepted.
  const accepted = await laurel.db.run(
    "update badges set state = 'accepted', user_id = ?, state_updated_at = now() where organization_id = ? and recipient_email = ?",
    [user?.user_id, org.id, "ada@example.org"],
  );
  t.equal(accepted, COUNT);

  // Another earner's small export first, downloaded a few times: the API process's heap settles to
  // its working size (V8 grows its young generation under the first allocation-heavy requests),
  // so what is measured below is what the wallet's size costs.
  const bo = await flows.signIn(await browser.newContext(), "bo@example.org");
  const few = Array.from({ length: 50 }, () => issueBody(template.id, { recipient_email: "bo@example.org" }));
  t.equal((await rest("POST", `${org.badges}/batch`, org.auth, { badges: few })).status, 201);
  await bo.goto(`${api.origin}/account`);
  const boMails = smtp.mails.length;
  await flows.click(bo, "Prepare my export");
  const warmUp = await flows.mailedLink("bo@example.org", /https?:\/\/\S+\/account\/export\/\S+/, boMails, 60_000);
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${api.origin}${new URL(warmUp).pathname}${new URL(warmUp).search}`);
    t.equal(res.status, 200);
    await res.arrayBuffer();
  }

  await page.goto(`${api.origin}/account`);
  const before = smtp.mails.length;
  await flows.click(page, "Prepare my export");
  t.match(await page.textContent(".notice"), /We will e-mail you a download link/);
  t.same(await seriousViolations(page), [], "the account page passes axe");
  await screenshots(page, "account-export");

  const link = new URL(
    await flows.mailedLink(
      "ada@example.org",
      /https?:\/\/\S+\/account\/export\/[0-9a-f-]+\?token=[A-Za-z0-9_-]+/,
      before,
      // A thousand badges baked into one ZIP: on a loaded 2-core machine this took over 60 s once.
      180_000,
    ),
  );
  const id = link.pathname.split("/").pop() ?? "";
  const token = link.searchParams.get("token") ?? "";
  const row = await laurel.db.one<{ token_digest: string; ready_at: Date; expires_at: Date }>(
    "select token_digest, ready_at, expires_at from earner_exports where id = ?",
    [id],
  );
  t.equal(row?.token_digest, createHash("sha256").update(token).digest("hex"), "only the token's digest is kept");
  t.equal((row?.expires_at.getTime() ?? 0) - (row?.ready_at.getTime() ?? 0), 7 * 86_400_000, "for 7 days");

  // Downloaded from the separate API process, its memory sampled as the file streams.
  for (let i = 0; i < 3; i++) await fetch(`${api.origin}/healthz`);
  const baseline = rssBytes();
  let peak = baseline;
  const file = join(dir.path, "export.zip");
  const res = await fetch(`${api.origin}${link.pathname}${link.search}`);
  t.equal(res.status, 200);
  t.equal(res.headers.get("content-type"), "application/zip");
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes());
  }, 20);
  await pipeline(res.body as unknown as NodeJS.ReadableStream, createWriteStream(file));
  clearInterval(sampler);
  peak = Math.max(peak, rssBytes());
  const grown = peak - baseline;
  // What a download allocates (the database socket's reads) is garbage V8 collects only past a
  // threshold, so the process grows while the file streams; it must stay within 64 MiB, and a
  // second download must not pile onto it: memory does not follow the number of downloads.
  t.ok(grown <= 64 * 1024 * 1024, `the API process grew by ${(grown / 1024 / 1024).toFixed(1)} MiB (<= 64 MiB)`);
  const again = await fetch(`${api.origin}${link.pathname}${link.search}`);
  let second = peak;
  const resampler = setInterval(() => {
    second = Math.max(second, rssBytes());
  }, 20);
  await pipeline(again.body as unknown as NodeJS.ReadableStream, createWriteStream(`${file}.2`));
  clearInterval(resampler);
  second = Math.max(second, rssBytes());
  // Garbage from the first download may still be uncollected when the second starts, so the
  // second is bounded with the first: together they stay under the same bound.
  t.ok(
    second - baseline <= 64 * 1024 * 1024,
    `two downloads grew the API process by ${((second - baseline) / 1024 / 1024).toFixed(1)} MiB (<= 64 MiB)`,
  );
  t.equal(readFileSync(`${file}.2`).length, readFileSync(file).length, "the same file");
  const chunks = await laurel.db.one<{ largest: number }>(
    "select max(length(bytes))::int as largest from earner_export_chunks where export_id = ?",
    [id],
  );
  t.ok((chunks?.largest ?? 0) <= 32 * 1024, "the file is stored in chunks of at most 32 KiB");

  const entries = await zipEntries(file);
  t.equal(entries.size, 1 + COUNT * 6, "profile.json and six files per badge");
  const profile = JSON.parse(entries.get("profile.json")?.toString() ?? "{}");
  t.same(profile.email_addresses, [{ email: "ada@example.org", confirmed: true }]);
  const badgeIds = new Set([...entries.keys()].filter((k) => k.startsWith("badges/")).map((k) => k.split("/")[1]));
  t.equal(badgeIds.size, COUNT);
  const sample = [...badgeIds][0] ?? "";
  const hosted = await (await fetch(`${laurel.baseUrl}/obi/v2/badge_assertions/${sample}`)).text();
  t.equal(entries.get(`badges/${sample}/ob2-assertion.json`)?.toString(), hosted, "the OB 2.0 assertion as hosted");
  const credential = await (await fetch(`${laurel.baseUrl}/obi/v3/credentials/${sample}`)).text();
  t.equal(entries.get(`badges/${sample}/ob3-credential.jwt`)?.toString(), credential, "the credential as served");
  const proven = await (await fetch(`${laurel.baseUrl}/obi/v3/credentials/${sample}/ldp`)).text();
  t.equal(entries.get(`badges/${sample}/ob3-credential.jsonld`)?.toString(), proven, "and with its proof, as served");
  t.equal(
    JSON.parse(entries.get(`badges/${sample}/ob3-credential.json`)?.toString() ?? "{}").id,
    `${laurel.baseUrl}/obi/v3/credentials/${sample}`,
  );
  const png = entries.get(`badges/${sample}/badge-baked.png`) ?? Buffer.alloc(0);
  const itxt = extractChunks(png).find((c) => c.name === "iTXt");
  t.match(Buffer.from(itxt?.data ?? []).toString("utf8"), hosted, "the image carries the assertion");

  // A wrong token is not found; an expired link (its 7 days moved into the past) is gone.
  t.equal((await fetch(`${api.origin}${link.pathname}?token=wrong`)).status, 404);
  await laurel.db.run("update earner_exports set expires_at = ready_at - interval '1 millisecond' where id = ?", [id]);
  const expired = await fetch(`${api.origin}${link.pathname}${link.search}`);
  t.equal(expired.status, 410);
  t.match(await expired.text(), /This download link has expired/);
});

t.test("an export stored in chunks of other sizes (as written before) downloads whole", async (t) => {
  const user = await laurel.db.one<{ user_id: string }>("select user_id from user_emails where email = ?", [
    "ada@example.org",
  ]);
  const id = "0193a6a0-0000-7000-8000-00000000e0e0";
  const token = "a-token-for-old-chunks";
  // Larger than a read's buffer, empty, tiny, and enough of them for more than one read.
  const sizes = [3_000_000, 0, 1, 40_000, 700_000, ...Array.from({ length: 16 }, (_, i) => 1_000 * (i + 1))];
  const parts = sizes.map((n, i) => Buffer.alloc(n, i + 1));
  const whole = Buffer.concat(parts);
  await laurel.db.run(
    `insert into earner_exports (id, user_id, state, token_digest, size_bytes, created_at, ready_at, expires_at)
     values (?, ?, 'ready', ?, ?, now(), now(), now() + interval '1 day')`,
    [id, user?.user_id, createHash("sha256").update(token).digest("hex"), whole.length],
  );
  for (const [seq, bytes] of parts.entries()) {
    await laurel.db.run("insert into earner_export_chunks (export_id, seq, bytes) values (?, ?, ?)", [id, seq, bytes]);
  }
  const res = await fetch(`${api.origin}/account/export/${id}?token=${token}`);
  t.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  t.equal(body.length, whole.length);
  t.ok(body.equals(whole), "every chunk, in order");
});
