import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { launchChromium, screenshots } from "../support/browser.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * The earner's public badge feed as the public tools read it (README widgets, portfolio and CV
 * builders): `GET /users/<name>/badges.json`, anonymous, from any origin, paged, cached by ETag.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));
const run = promisify(execFile);

/**
 * A reader written the way those tools are, in Python with the standard library only: it pages
 * with `page`, `per=48` and the parameters one tool always sends, reads `metadata.total_pages`,
 * parses each time with `fromisoformat` and renders a Markdown list, as a README widget does.
 */
const WIDGET = `
import json, sys, urllib.request
from datetime import datetime, date
base = sys.argv[1]
def get(page):
    req = urllib.request.Request(f"{base}?page={page}&per=48&sort=most_popular&filter=all",
                                 headers={"Accept": "application/json", "User-Agent": "badge-widget/1.0"})
    with urllib.request.urlopen(req) as res:
        return json.load(res)
first = get(1)
badges = list(first["data"])
for page in range(2, first["metadata"]["total_pages"] + 1):
    badges += get(page)["data"]
for b in badges:
    issued = datetime.fromisoformat(b["issued_at"])
    assert issued.utcoffset() is not None
    assert date.fromisoformat(b["issued_at_date"]) == issued.date()
    datetime.fromisoformat(b["accepted_at"]); datetime.fromisoformat(b["updated_at"])
    if b["expires_at"] is not None: datetime.fromisoformat(b["expires_at"])
    t = b["badge_template"]
    issuer = ", ".join(e["entity"]["name"] for e in b["issuer"]["entities"])
    skills = ", ".join(s["name"] for s in t["skills"])
    print(f"- ![{t['name']}]({b['image_url']}) **{t['name']}** by {issuer} on {b['issued_at_date']} [{skills}]")
print(f"{len(badges)} badges for {badges[0]['issued_to'] if badges else 'nobody'} at {badges[0]['earner_path'] if badges else '-'}")
`;

t.test("the feed: accepted public badges only, newest first, in the shape the tools read", async (t) => {
  const { laurel, smtp } = mailed;
  const api = apiClient(laurel);
  const org = await organization(laurel, "Feed Academy");
  const python = await createTemplate(laurel, org, {
    name: "Python Foundations",
    skills: ["Python", "Testing"],
    criteria_url: "https://academy.example.org/criteria",
    allow_duplicate_badges: true,
  });
  const plain = await createTemplate(laurel, org, { name: "Plain Badge", allow_duplicate_badges: true });

  const ada = httpEarner(laurel.origin, smtp);
  await ada.signIn("ada@example.org");
  const issue = async (templateId: string, issued_at: string, more: Record<string, unknown> = {}) => {
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(templateId, { recipient_email: "ada@example.org", issued_at, ...more }),
    );
    t.equal(res.status, 201);
    return res.body.data.id as string;
  };
  const older = await issue(python.id, "2025-03-14T09:30:00Z", { expires_at: "2030-01-01T00:00:00Z" });
  const newer = await issue(plain.id, "2025-06-01T12:00:00+02:00");
  const hidden = await issue(plain.id, "2025-07-01T00:00:00Z");
  const revoked = await issue(python.id, "2025-08-01T00:00:00Z");
  const pending = await issue(python.id, "2025-09-01T00:00:00Z");
  for (const id of [older, newer, hidden, revoked]) await ada.post(`/badges/${id}/accept`);
  await ada.post(`/badges/${hidden}/privacy`, { public: "false" });
  t.equal((await api("PUT", `${org.badges}/${revoked}/revoke`, org.auth, { reason: "Issued in error" })).status, 200);

  const feedOf = (path: string, headers: Record<string, string> = {}) => fetch(`${laurel.origin}${path}`, { headers });
  t.equal((await feedOf("/users/ada-l/badges.json")).status, 404, "no public profile yet");

  await ada.post("/account/profile", { public_profile: "on", vanity_name: "ada-l" });
  const res = await feedOf("/users/ada-l/badges.json", { origin: "https://widgets.example.net" });
  t.equal(res.status, 200);
  t.equal(res.headers.get("access-control-allow-origin"), "*", "readable from any page");
  t.match(res.headers.get("content-type"), /^application\/json/);
  const feed = await res.json();
  t.same(
    feed.data.map((b: { id: string }) => b.id),
    [newer, older],
    "accepted and public only (not the private, revoked or pending ones), newest first",
  );
  t.not(pending, newer);
  const [first, second] = feed.data;
  t.match(second, {
    id: older,
    issued_at: "2025-03-14T09:30:00.000+00:00",
    issued_at_date: "2025-03-14",
    expires_at: "2030-01-01T00:00:00.000+00:00",
    expires_at_date: "2030-01-01",
    accepted_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/,
    updated_at: /\+00:00$/,
    issued_to: "Ada Lovelace",
    earner_path: "/users/ada-l",
    image_url: /^http/,
    issuer: { entities: [{ entity: { name: "Feed Academy" } }] },
    badge_template: {
      name: "Python Foundations",
      description: String,
      image_url: /^http/,
      skills: [{ name: "Python" }, { name: "Testing" }],
      badge_template_activities: [{ title: "Criteria", url: "https://academy.example.org/criteria" }],
      issuer: { entities: [{ entity: { name: "Feed Academy" } }] },
    },
  });
  t.match(first, {
    issued_at: "2025-06-01T10:00:00.000+00:00",
    expires_at: null,
    expires_at_date: null,
    badge_template: { name: "Plain Badge", skills: [], badge_template_activities: [] },
  });
  t.notOk("level" in first.badge_template, "a field Laurel has no value for is left out, never sent as null");
  t.match(feed.metadata, {
    count: 2,
    current_page: 1,
    total_count: 2,
    total_pages: 1,
    per: 50,
    previous_page_url: null,
    next_page_url: null,
  });

  const etag = res.headers.get("etag") as string;
  t.match(etag, /^"[\w-]+"$/);
  t.match(res.headers.get("cache-control"), /public, max-age=\d+/);
  const again = await feedOf("/users/ada-l/badges.json", { "if-none-match": etag });
  t.equal(again.status, 304, "unchanged: not sent again");

  const paged = await (await feedOf("/users/ada-l/badges.json?page=2&per=1&sort=most_popular&filter=all")).json();
  t.same(
    paged.data.map((b: { id: string }) => b.id),
    [older],
    "page 2 of 1 a page; the tools' other parameters change nothing",
  );
  t.match(paged.metadata, { current_page: 2, total_pages: 2, per: 1, next_page_url: null });
  t.match(new URL(paged.metadata.previous_page_url).search, /page=1/);
  t.equal(
    (await (await feedOf("/users/ada-l/badges.json?page_size=1")).json()).metadata.per,
    1,
    "page_size, as one tool sends it",
  );
  const bad = await feedOf("/users/ada-l/badges.json?per=1000");
  t.equal(bad.status, 400);
  t.match(await bad.json(), { data: { code: "bad_request", errors: [{ field: "per" }] } });

  const asJson = await feedOf("/users/ada-l/badges", { accept: "application/json" });
  t.same((await asJson.json()).data, feed.data, "the same feed at /users/<name>/badges asked for as JSON");
  const asPage = await fetch(`${laurel.origin}/users/ada-l/badges`, {
    headers: { accept: "text/html" },
    redirect: "manual",
  });
  t.equal(asPage.status, 303, "a browser is sent to the profile page");

  // A badge made private leaves the feed; the ETag tells a reader it changed.
  await ada.post(`/badges/${newer}/privacy`, { public: "false" });
  const changed = await feedOf("/users/ada-l/badges.json", { "if-none-match": etag });
  t.equal(changed.status, 200);
  t.same(
    (await changed.json()).data.map((b: { id: string }) => b.id),
    [older],
  );
  await ada.post(`/badges/${newer}/privacy`, { public: "true" });

  const { stdout } = await run("python3", ["-c", WIDGET, `${laurel.origin}/users/ada-l/badges.json`]);
  const lines = stdout.trim().split("\n");
  t.equal(lines.length, 3, stdout);
  t.match(lines[0], /^- !\[Plain Badge\]\(http[^)]+\) \*\*Plain Badge\*\* by Feed Academy on 2025-06-01 \[\]$/);
  t.match(
    lines[1],
    /^- !\[Python Foundations\]\(http[^)]+\) \*\*Python Foundations\*\* by Feed Academy on 2025-03-14 \[Python, Testing\]$/,
  );
  t.equal(lines[2], "2 badges for Ada Lovelace at /users/ada-l", "the widget reads every field it needs");

  // A README-style widget on another site, in a real browser: a cross-origin fetch and a list.
  const widgetSite = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>My badges</title>
<style>body{font:15px system-ui;margin:2rem}li{display:flex;gap:.75rem;align-items:center;margin:.5rem 0}img{width:48px;height:48px}</style></head>
<body><h1>My badges</h1><ul id="badges"></ul><p id="status">loading</p><script>
fetch(${JSON.stringify(`${laurel.origin}/users/ada-l/badges.json?per=48`)}, { headers: { accept: "application/json" } })
  .then((r) => r.json())
  .then((feed) => {
    for (const b of feed.data) {
      const li = document.createElement("li");
      const img = document.createElement("img");
      img.src = b.image_url; img.alt = "";
      const text = document.createElement("span");
      text.textContent = b.badge_template.name + " by " + b.issuer.entities[0].entity.name + ", " + b.issued_at_date;
      li.append(img, text);
      document.getElementById("badges").append(li);
    }
    document.getElementById("status").textContent = feed.metadata.total_count + " badges";
  })
  .catch((e) => { document.getElementById("status").textContent = "failed: " + e; });
</script></body></html>`);
  });
  await new Promise<void>((resolve) => widgetSite.listen(0, "127.0.0.1", resolve));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    // localhost, not 127.0.0.1: another origin than Laurel's.
    await page.goto(`http://localhost:${(widgetSite.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => document.getElementById("status")?.textContent !== "loading");
    t.equal(await page.textContent("#status"), "2 badges", "the widget read the feed across origins");
    t.same(await page.locator("#badges li span").allTextContents(), [
      "Plain Badge by Feed Academy, 2025-06-01",
      "Python Foundations by Feed Academy, 2025-03-14",
    ]);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    await screenshots(page, "public-badge-feed-widget");
  } finally {
    await browser.close();
    widgetSite.close();
  }

  for (const who of ["nobody-here", "0190a0d8-0000-7000-8000-000000000000"]) {
    const missing = await feedOf(`/users/${who}/badges.json`);
    t.equal(missing.status, 404, who);
    t.equal(missing.headers.get("access-control-allow-origin"), "*", "a reader sees the 404 too");
    t.match(await missing.json(), { data: { code: "not_found" } });
  }
  await ada.post("/account/profile", { public_profile: "", vanity_name: "ada-l" });
  t.equal((await feedOf("/users/ada-l/badges.json")).status, 404, "a private profile is not found");
});
