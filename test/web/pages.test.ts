import t from "tap";
import { badgePage, renderPage, safeUrl, webUrls } from "../../adapters/web/mod.ts";
import type { BadgeView } from "../../core/issuing/mod.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** The web adapter without a browser: rendering of hostile values, limits, redirects, fallbacks. */
let laurel: TestLaurel;
t.before(async () => {
  laurel = await startLaurel();
});
t.teardown(() => laurel.close());

t.test("safeUrl lets only http(s) through", async (t) => {
  t.equal(safeUrl("https://a.example/x"), "https://a.example/x");
  t.equal(safeUrl("http://a.example/"), "http://a.example/");
  for (const bad of [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,x",
    "/relative",
    "",
    null,
    undefined,
  ])
    t.equal(safeUrl(bad), undefined, String(bad));
});

t.test("hostile values render as text, javascript: URLs as no link", async (t) => {
  const now = new Date("2026-01-01T00:00:00Z");
  const view = {
    badge: {
      id: "b1",
      organization_id: "o1",
      state: "accepted",
      public: true,
      issued_to_first_name: '"><img src=x onerror=alert(1)>',
      issued_to_middle_name: null,
      issued_to_last_name: "<script>alert(2)</script>",
      recipient_email: "a@example.org",
      issued_at: now,
      expires_at: null,
      evidence: [{ type: "UrlEvidence", name: "<b>proof</b>", description: null, value: "javascript:alert(3)" }],
      revocation_reason: null,
      replacement_badge_id: null,
      user_id: null,
    },
    template: {
      name: "<script>alert(4)</script>",
      description: "x",
      skills: [],
      image_url: "javascript:alert(5)",
      criteria_url: "javascript:alert(6)",
      alignments: [{ name: "a", url: "javascript:alert(7)", description: null }],
      state: "active",
    },
    issuer: { id: "o1", name: "<i>Org</i>", website_url: null, image_url: null, description: null, email: null },
  } as unknown as BadgeView;
  const out = renderPage(
    badgePage(
      { title: "t", viewer: null, csrf: "c" },
      { view, now, checks: [], emailCheck: null, notice: null, downloads: [] },
      webUrls("https://laurel.example", "https://laurel.example/v1"),
    ),
  );
  t.notMatch(out, /<script>alert/, "no script element from data");
  t.notMatch(out, /<img src="?x/, "no injected element");
  t.notMatch(out, /(href|src|action)="javascript:/i, "no javascript: URL in a link or source");
  t.match(out, /<span class="raw">javascript:alert\(6\)<\/span>/, "shown as text instead");
  t.match(out, /&lt;script>alert\(4\)&lt;\/script>/, "the name is shown as text");
});

const form = (fields: Record<string, string>, cookie: string) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", cookie },
  body: new URLSearchParams(fields).toString(),
  redirect: "manual" as const,
});

/** A page's CSRF cookie and token, as a browser would hold them. */
const csrf = async (path = "/sign_in"): Promise<{ cookie: string; token: string }> => {
  const res = await fetch(`${laurel.origin}${path}`);
  const cookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] as string;
  return { cookie, token };
};

t.test("sign-in: same answer for any address, bad input 422, limited per address", async (t) => {
  const { cookie, token } = await csrf();
  const bad = await fetch(`${laurel.origin}/sign_in`, form({ _csrf: token, email: "not an address" }, cookie));
  t.equal(bad.status, 422);
  t.match(await bad.text(), /Enter an e-mail address/);
  const answers: number[] = [];
  let body = "";
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${laurel.origin}/sign_in`, form({ _csrf: token, email: "nobody@example.org" }, cookie));
    answers.push(res.status);
    body = await res.text();
  }
  t.same(answers, [200, 200, 200, 200, 200, 429], "the sixth link within 15 minutes is refused");
  t.match(body, /Too many/);
});

t.test("next must stay inside Laurel; signed-out actions go to sign-in", async (t) => {
  const page = await (await fetch(`${laurel.origin}/sign_in?next=https://evil.example/`)).text();
  t.notMatch(page, /evil\.example/, "an outside next is dropped");
  const kept = await (await fetch(`${laurel.origin}/sign_in?next=/wallet`)).text();
  t.match(kept, /name="next" value="\/wallet"/);
  const root = await fetch(`${laurel.origin}/`, { redirect: "manual" });
  t.equal(root.headers.get("location"), "/sign_in", "the root sends a visitor to sign in");
  for (const path of ["/wallet", "/account"]) {
    const res = await fetch(`${laurel.origin}${path}`, { redirect: "manual" });
    t.equal(res.status, 303);
    t.equal(res.headers.get("location"), `/sign_in?next=${encodeURIComponent(path)}`);
  }
  const { cookie, token } = await csrf();
  const id = "0190b0a0-0000-7000-8000-000000000000";
  const accept = await fetch(`${laurel.origin}/badges/${id}/accept`, form({ _csrf: token }, cookie));
  t.equal(accept.status, 303);
  t.equal(accept.headers.get("location"), `/sign_in?next=${encodeURIComponent(`/badges/${id}`)}`);
  const link = await fetch(`${laurel.origin}/sign_in/link`, form({ _csrf: token, token: "nope" }, cookie));
  t.equal(link.status, 404);
  t.match(await link.text(), /This link does not work/);
});

t.test("every page carries the security headers, a strict Content-Security-Policy first", async (t) => {
  for (const path of ["/sign_in", "/no/such/page", "/assets/laurel.css"]) {
    const res = await fetch(`${laurel.origin}${path}`, { headers: { accept: "text/html" } });
    await res.arrayBuffer();
    t.equal(
      res.headers.get("content-security-policy"),
      "default-src 'self';script-src 'self';style-src 'self';img-src 'self' https: data:;form-action 'self';" +
        "frame-ancestors 'none';base-uri 'none';object-src 'none'",
      path,
    );
    t.match(
      Object.fromEntries(res.headers),
      {
        "x-content-type-options": "nosniff",
        "x-frame-options": "SAMEORIGIN",
        "referrer-policy": "same-origin",
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-resource-policy": "same-origin",
        "origin-agent-cluster": "?1",
        "x-dns-prefetch-control": "off",
        "x-download-options": "noopen",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      },
      path,
    );
    // Served over http here: no HSTS, which only an https public URL turns on.
    t.equal(res.headers.get("strict-transport-security"), null, path);
    t.equal(res.headers.get("x-powered-by"), null, path);
  }
});

t.test("unknown paths: the 404 page for browsers, the API error body otherwise", async (t) => {
  const html = await fetch(`${laurel.origin}/no/such/page`, { headers: { accept: "text/html" } });
  t.equal(html.status, 404);
  t.match(html.headers.get("content-type"), /text\/html/);
  t.match(html.headers.get("content-security-policy"), /frame-ancestors 'none'/);
  const api = await fetch(`${laurel.origin}/no/such/page`);
  t.equal(api.status, 404);
  t.same(await api.json(), {
    data: { message: "No route for GET /no/such/page", code: "not_found", errors: [] },
    metadata: {},
  });
  // An id longer than any route takes and text PostgreSQL refuses: the request lands on the
  // catch-all, whose refusal is the API's error body too (a fuzzed request found the page instead).
  const refused = await fetch(`${laurel.origin}/v1/organizations/${"x".repeat(260)}/oauth_applications?page=1%00`, {
    headers: { authorization: "" },
  });
  t.equal(refused.status, 400);
  t.match(refused.headers.get("content-type"), /application\/json/);
  t.match(await refused.json(), { data: { code: "bad_request" }, metadata: {} });
  const refusedPage = await fetch(`${laurel.origin}/no/such/page?q=%00`, { headers: { accept: "text/html" } });
  t.equal(refusedPage.status, 400, "a browser gets the page");
  t.match(refusedPage.headers.get("content-type"), /text\/html/);
  for (const path of ["/badges/not-a-uuid", "/organizations/0190b0a0-0000-7000-8000-000000000000", "/users/nobody"]) {
    t.equal((await fetch(`${laurel.origin}${path}`)).status, 404, path);
  }
  const css = await fetch(`${laurel.origin}/assets/laurel.css`);
  t.equal(css.status, 200);
  t.match(css.headers.get("content-type"), /text\/css/);
});
