import { createServer, type Server } from "node:net";
import { decodeJwt } from "jose";
import t from "tap";
import { Value } from "typebox/value";
import { uuidv7 } from "../../adapters/crypto/mod.ts";
import { readConfig } from "../../apps/config.ts";
import { wireExternalBadges } from "../../apps/external_badge_wiring.ts";
import { EmploymentEventDetailSchema, EmploymentSchema, type EventType } from "../../core/events/mod.ts";
import { ExternalBadgeSchema, reverifyDue } from "../../core/workforce/mod.ts";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { earnerFlows, startEarnerWebhookServices } from "../support/earner_flows.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { fetchCredential } from "../support/ob3.ts";
import { waitFor, webhookOrganization } from "../support/webhooks.ts";

/**
 * Badges from other issuers, end to end: an earner adds them on the wallet (forms over HTTP, as a
 * browser sends them), Laurel fetches and verifies them through the webhook SSRF guard against
 * another HTTPS issuer and itself, the connected employer reads the outcome over REST and is told
 * by events (listed and delivered), and the daily re-verification runs with the real store and
 * fetcher on a clock a day ahead.
 */

// biome-ignore lint/suspicious/noExplicitAny: REST bodies and event details of many shapes
type Json = any;

const services = await startEarnerWebhookServices();
t.teardown(services.close);
const { laurel, smtp, receiver, ca } = services;
const issuer = await startObIssuer(ca);
t.teardown(issuer.close);
const api = apiClient(laurel);

const org = await webhookOrganization(laurel, { url: receiver.url, events: "all", name: "Acme" });
await trpc(laurel, "workforce.authorize", { organization_id: org.id, authorized: true });
const employee = (
  await api("POST", `/organizations/${org.id}/employees`, org.auth, {
    email: "ann@example.org",
    first_name: "Ann",
    last_name: "Able",
    external_id: "ANN",
  })
).body.data as { id: string };
const listPath = `/organizations/${org.id}/employees/${employee.id}/external_badges`;

/** Another organization of the same Laurel, issuing to Ann without being her employer. */
const guild = await organization(laurel, "Guild of Riggers");

interface Answer {
  status: number;
  location: string | null;
  text: string;
}

/**
 * The earner's browser reduced to a cookie jar and the CSRF token of the last page, like the
 * shared `httpEarner`, except that a refused form is an answer to read (its status and page)
 * rather than an error.
 */
const earner = () => {
  const jar = new Map<string, string>();
  let csrf = "";
  const { linkMailedTo } = earnerFlows(() => ({ origin: laurel.origin, smtp }));
  const send = async (path: string, fields?: Record<string, string>): Promise<Answer> => {
    const res = await fetch(`${laurel.origin}${path}`, {
      method: fields ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(fields ? { "content-type": "application/x-www-form-urlencoded", origin: laurel.origin } : {}),
      },
      ...(fields ? { body: new URLSearchParams({ ...fields, _csrf: csrf }).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0] ?? "";
      const at = pair.indexOf("=");
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return { status: res.status, location: res.headers.get("location"), text };
  };
  /** Uses the link mailed to `to` (among the mails after the first `after`): opens it and presses its button. */
  const useMailedLink = async (to: string, after: number): Promise<Answer> => {
    const link = new URL(await linkMailedTo(to, after));
    await send(`${link.pathname}${link.search}`);
    return send("/sign_in/link", { token: link.searchParams.get("token") ?? "" });
  };
  const signIn = async (email: string): Promise<void> => {
    await send("/sign_in");
    const before = smtp.mails.length;
    await send("/sign_in", { email });
    const done = await useMailedLink(email, before);
    if (!done.location?.startsWith("/wallet")) throw new Error(`sign-in of ${email} ended at ${done.location}`);
  };
  return { get: (path: string) => send(path), post: send, signIn, useMailedLink };
};
const ann = earner();

/** The employer's view of Ann's external badges, newest first (every page), or the refusal's status. */
const listing = async (auth = org.auth): Promise<{ status: number; items: Json[] }> => {
  const items: Json[] = [];
  let url: string | null = listPath;
  while (url) {
    const res = await api("GET", url, auth);
    if (res.status !== 200) return { status: res.status, items: [] };
    items.push(...res.body.data);
    url = res.body.metadata.next_page_url;
  }
  return { status: 200, items };
};
const byId = async (id: string): Promise<Json> => (await listing()).items.find((b: Json) => b.id === id);

/** Ann adds a badge on the wallet; answers the page's answer and the id of the badge it stored, if one. */
const add = async (fields: Record<string, string>): Promise<{ answer: Answer; id: string | undefined }> => {
  const before = new Set((await ann.get("/wallet")).text.match(/data-external-badge="[^"]+"/g));
  const answer = await ann.post("/wallet/external_badges", fields);
  const after = (await ann.get("/wallet")).text.match(/data-external-badge="([^"]+)"/g) ?? [];
  const fresh = after.filter((a) => !before.has(a));
  return { answer, id: fresh.length === 1 ? /"([^"]+)"/.exec(fresh[0] as string)?.[1] : undefined };
};

/** This organization's events of `kind` from the events API (every page, in its order). */
const listed = async (kind: EventType): Promise<Json[]> => {
  const out: Json[] = [];
  let url: string | null = `${laurel.baseUrl}/organizations/${org.id}/events?event_type=${kind}`;
  while (url) {
    const page: Json = await api("GET", url, org.auth);
    out.push(...page.body.data);
    url = page.body.metadata.next_page_url;
  }
  return out;
};
const ofBadge = (events: Json[], id: string): Json[] => events.filter((e) => e.external_badge?.id === id);

/** A TCP server that counts the connections made to it: nothing may reach it. */
const canary = async (host: string): Promise<{ server: Server; port: number; connections: number }> => {
  const c = { server: createServer(), port: 0, connections: 0 };
  c.server.on("connection", (s) => {
    c.connections++;
    s.destroy();
  });
  await new Promise<void>((resolve) => c.server.listen(0, host, resolve));
  c.port = (c.server.address() as { port: number }).port;
  return c;
};

/** What the steps leave for the later ones. */
const w = {
  first: "",
  firstUrl: "",
  vc: "",
  vcJwt: "",
  expiring: "",
  guildBadge: "",
  guildVc: "",
  secondAddress: "",
  guildBadgeClass: "",
  addedWhileConnected: [] as string[],
};

t.test("the employer sees nothing before the connection is accepted, then the badge", async (t) => {
  await ann.signIn("ann@example.org");
  t.match((await ann.get("/wallet")).text, /Acme/, "the wallet asks Ann about Acme");
  w.firstUrl = issuer.assertion("ann@example.org");
  const { answer, id } = await add({ url: w.firstUrl });
  t.equal(answer.status, 303);
  t.equal(answer.location, "/wallet?done=external_added#external");
  t.ok(id, "the wallet shows the badge");
  w.first = id as string;

  const pending = await listing();
  t.equal(pending.status, 200);
  t.same(pending.items, [], "empty while the connection is pending");
  t.same(await listed("employment.external_badges.added"), [], "an employer not connected is not told");

  const other = await webhookOrganization(laurel, { url: null, name: "Nosy" });
  await trpc(laurel, "workforce.authorize", { organization_id: other.id, authorized: true });
  const foreign = await listing(other.auth);
  t.equal(foreign.status, 403, "another organization's credential is refused");

  await ann.post(`/wallet/employers/${employee.id}/accept`, {});
  const accepted = (await api("GET", `/organizations/${org.id}/employees/${employee.id}`, org.auth)).body.data;
  t.equal(accepted.employee_state, "accepted");
  const connected = await listing();
  t.equal(connected.items.length, 1);
  const [badge] = connected.items;
  t.ok(Value.Check(ExternalBadgeSchema, badge), "the listing's schema");
  t.match(badge, {
    id: w.first,
    source: "open_badges_v2",
    url: w.firstUrl,
    name: "Rope Access Level 1",
    description: "Works safely at height on ropes.",
    issuer_origin: issuer.origin,
    claimed_issuer_name: "Other Academy",
    claimed_issuer_url: issuer.origin,
    issued_at: "2026-01-15T10:00:00.000Z",
    verification_status: "validated",
    verification_reason: null,
  });
  t.equal((await listing(other.auth)).status, 403, "still refused once connected");
});

t.test("each kind of badge is verified and stored with its outcome", async (t) => {
  // A port nothing listens on any more.
  const closed = await canary("127.0.0.1");
  await new Promise((resolve) => closed.server.close(resolve));
  // Another loopback address, outside WEBHOOK_ALLOWED_NETWORKS (127.0.0.1/32): a redirect there must not connect.
  const inside = await canary("127.0.0.2");
  t.teardown(() => new Promise((resolve) => inside.server.close(resolve)));

  const served = (path: string, answer: Parameters<typeof issuer.serve>[1]): string => {
    issuer.serve(path, answer);
    return `${issuer.origin}${path}`;
  };
  const revoked = issuer.assertion("ann@example.org");
  const soon = new Date(Date.now() + 12 * 3_600_000).toISOString();
  const expiring = issuer.assertion("ann@example.org", { expires: soon });
  issuer.serve(new URL(revoked).pathname, { status: 410, json: { id: revoked, revoked: true } });

  // Badges of the Guild (same Laurel), accepted on Ann's wallet: its hosted assertion and its VC-JWT.
  const guildBadge = async (name: string): Promise<string> => {
    const template = await createTemplate(laurel, guild, { name });
    const res = await api(
      "POST",
      guild.badges,
      guild.auth,
      issueBody(template.id, { recipient_email: "ann@example.org" }),
    );
    t.equal(res.status, 201, `the Guild issues ${name}`);
    await ann.post(`/badges/${res.body.data.id}/accept`, { back: "wallet" });
    return res.body.data.id;
  };
  const guildAssertion = `${laurel.baseUrl}/obi/v2/badge_assertions/${await guildBadge("Crane Operator")}`;
  w.guildBadgeClass = ((await (await fetch(guildAssertion)).json()) as { badge: string }).badge;
  w.guildBadge = await guildBadge("Rigger");
  const guildCredentialUrl = `${laurel.baseUrl}/obi/v3/credentials/${w.guildBadge}`;
  const guildCredential = await fetchCredential(guildCredentialUrl);
  t.equal(guildCredential.status, 200);
  const guildJwt = guildCredential.jwt;
  const vc = await issuer.credential("ann@example.org");
  w.vcJwt = vc;
  // A credential's header and claims with another credential's signature.
  const [head, claims] = (await issuer.credential("ann@example.org")).split(".");
  const spliced = `${head}.${claims}.${(await issuer.credential("ann@example.org")).split(".")[2]}`;
  // A credential its issuer has revoked since: its id answers 410 with an HTML page.
  const withdrawn = await issuer.credential("ann@example.org");
  issuer.serve(new URL(decodeJwt(withdrawn).jti as string).pathname, {
    status: 410,
    text: "<html>Gone</html>",
    headers: { "content-type": "text/html" },
  });

  const placeholder = (host: string) => ({
    name: `Badge at ${host}`,
    issuer_origin: null,
    claimed_issuer_name: "Unknown issuer",
    claimed_issuer_url: null,
  });
  const rope = { name: "Rope Access Level 1", claimed_issuer_name: "Other Academy", claimed_issuer_url: issuer.origin };
  const other = new URL(issuer.origin).host;
  const cases: Array<{ what: string; fields: Record<string, string>; status: string; reason: string | null } & Json> = [
    {
      what: "an assertion to another address",
      fields: { url: issuer.assertion("someone@example.org") },
      status: "unvalidated",
      reason: "recipient_mismatch",
      ...rope,
    },
    {
      what: "a revoked assertion (410)",
      fields: { url: revoked },
      status: "unvalidated",
      reason: "revoked",
      ...placeholder(other),
    },
    {
      what: "an address nothing answers",
      fields: { url: `http://127.0.0.1:${closed.port}/assertions/1` },
      status: "unvalidated",
      reason: "unreachable",
      ...placeholder(`127.0.0.1:${closed.port}`),
    },
    {
      what: "an HTML page",
      fields: { url: served("/html", { status: 200, text: "<html>", headers: { "content-type": "text/html" } }) },
      status: "unvalidated",
      reason: "malformed",
      ...placeholder(other),
    },
    {
      what: "a JSON array",
      fields: { url: served("/array", { status: 200, json: [] }) },
      status: "unvalidated",
      reason: "malformed",
      ...placeholder(other),
    },
    {
      what: "a redirect to a private network",
      fields: { url: served("/to-private", { status: 302, headers: { location: "http://10.0.0.1/x" } }) },
      status: "unvalidated",
      reason: "blocked_address",
      ...placeholder(other),
    },
    {
      what: "an assertion that says it lives elsewhere",
      fields: { url: issuer.assertion("ann@example.org", { id: "https://elsewhere.example/assertions/1" }) },
      status: "unvalidated",
      reason: "id_mismatch",
      ...rope,
    },
    {
      what: "an expired assertion",
      fields: { url: issuer.assertion("ann@example.org", { expires: "2026-02-01T00:00:00Z" }) },
      status: "unvalidated",
      reason: "expired",
      ...rope,
      expires_at: "2026-02-01T00:00:00.000Z",
    },
    {
      what: "an answer larger than a badge's documents",
      fields: {
        url: served("/huge", {
          status: 200,
          text: JSON.stringify({ type: "Assertion", padding: "x".repeat(1_500_000) }),
        }),
      },
      status: "unvalidated",
      reason: "malformed",
      ...placeholder(other),
    },
    {
      what: "a redirect loop",
      fields: { url: served("/loop", { status: 302, headers: { location: "/loop" } }) },
      status: "unvalidated",
      reason: "unreachable",
      ...placeholder(other),
    },
    {
      what: "an assertion that expires in 12 hours",
      fields: { url: expiring },
      status: "validated",
      reason: null,
      ...rope,
      expires_at: soon,
    },
    {
      what: "a redirect to the cloud metadata address",
      fields: { url: served("/to-metadata", { status: 302, headers: { location: "http://169.254.169.254/" } }) },
      status: "unvalidated",
      reason: "blocked_address",
      ...placeholder(other),
    },
    {
      what: "a redirect to a loopback address outside the allowlist",
      fields: {
        url: served("/to-loopback", { status: 302, headers: { location: `http://127.0.0.2:${inside.port}/x` } }),
      },
      status: "unvalidated",
      reason: "blocked_address",
      ...placeholder(other),
    },
    {
      what: "another organization's hosted assertion on this Laurel",
      fields: { url: guildAssertion },
      status: "validated",
      reason: null,
      name: "Crane Operator",
      issuer_origin: laurel.origin,
      claimed_issuer_name: "Guild of Riggers",
    },
    {
      what: "an OB 3.0 VC-JWT of the other issuer",
      fields: { credential: vc },
      status: "validated",
      reason: null,
      source: "open_badges_v3",
      name: "Confined Space Entry",
      issuer_origin: issuer.origin,
      claimed_issuer_name: "Other Academy",
      claimed_issuer_url: issuer.origin,
    },
    {
      what: "a VC-JWT whose signature is another credential's",
      fields: { credential: spliced },
      status: "unvalidated",
      reason: "signature_invalid",
      source: "open_badges_v3",
      name: "Confined Space Entry",
    },
    {
      what: "a VC-JWT whose key is not on its issuer's origin",
      fields: {
        credential: await issuer.credential("ann@example.org", {
          issuer: { id: "https://elsewhere.example/issuer", type: ["Profile"], name: "Elsewhere" },
        }),
      },
      status: "unvalidated",
      reason: "key_unresolved",
      issuer_origin: null,
      claimed_issuer_name: "Elsewhere",
    },
    {
      what: "a VC-JWT whose id answers 410",
      fields: { credential: withdrawn },
      status: "unvalidated",
      reason: "revoked",
      source: "open_badges_v3",
      name: "Confined Space Entry",
    },
    {
      what: "this Laurel's own VC-JWT",
      fields: { credential: guildJwt },
      status: "validated",
      reason: null,
      source: "open_badges_v3",
      url: guildCredentialUrl,
      name: "Rigger",
      issuer_origin: laurel.origin,
      claimed_issuer_name: "Guild of Riggers",
    },
  ];

  for (const { what, fields, status, reason, ...shown } of cases) {
    const started = Date.now();
    const { answer, id } = await add(fields);
    t.equal(answer.status, 303, `${what}: added`);
    t.equal(
      answer.location,
      `/wallet?done=${status === "validated" ? "external_added" : "external_unverified"}#external`,
      `${what}: the notice`,
    );
    if (!id) {
      t.fail(`${what}: no new badge on the wallet`);
      continue;
    }
    w.addedWhileConnected.push(id);
    const stored = await byId(id);
    t.match(stored, { verification_status: status, verification_reason: reason, ...shown }, what);
    if (reason === "blocked_address") t.ok(Date.now() - started < 5_000, `${what}: refused at once, not timed out`);
    if (what.startsWith("an OB 3.0")) w.vc = id;
    if (what.startsWith("this Laurel's own")) w.guildVc = id;
    if (what.includes("12 hours")) w.expiring = id;
  }
  t.equal(inside.connections, 0, "nothing connected to the address outside the allowlist");
});

t.test("an assertion hosted on one origin cannot claim another origin's issuer", async (t) => {
  // Hosted verification (OB 2.0): the assertion's address must be within its issuer's origin;
  // otherwise anyone can host an assertion to themselves naming someone else's badge class.
  const forgeries: Array<[string, string]> = [
    [
      "pointing at the Guild's badge class on Laurel",
      issuer.assertion("ann@example.org", { badge: w.guildBadgeClass }),
    ],
    [
      "embedding a badge class of a famous issuer",
      issuer.assertion("ann@example.org", {
        badge: {
          type: "BadgeClass",
          id: "https://university.example/badges/phd",
          name: "Doctor of Philosophy",
          description: "A doctorate.",
          criteria: { narrative: "A thesis." },
          issuer: {
            type: "Profile",
            id: "https://university.example/issuer",
            name: "Famous University",
            url: "https://university.example",
          },
        },
      }),
    ],
  ];
  for (const [what, url] of forgeries) {
    const { id } = await add({ url });
    const stored = await byId(id as string);
    t.match(stored, { verification_status: "unvalidated", verification_reason: "id_mismatch" }, what);
    w.addedWhileConnected.push(id as string);
  }
});

t.test("a self-signed credential shows its signer's origin, never the famous issuer it names", async (t) => {
  // The other issuer signs with its own key on its own origin, claiming to be a university.
  const harvard = "https://www.harvard.edu";
  const named = { id: `${issuer.origin}/issuer`, type: ["Profile"], name: "Harvard University" };
  const forgeries: Array<[string, Record<string, unknown>]> = [
    ["the university's name and address", { issuer: { ...named, url: harvard } }],
    ["a credential id on the university's site", { issuer: named, id: `${harvard}/credentials/phd-1` }],
  ];
  for (const [what, claims] of forgeries) {
    const { id } = await add({ credential: await issuer.credential("ann@example.org", claims) });
    const stored = await byId(id as string);
    t.match(
      stored,
      { verification_status: "unvalidated", verification_reason: "id_mismatch", issuer_origin: null },
      what,
    );
    t.notOk("issuer" in stored, `${what}: no issuer object`);
    w.addedWhileConnected.push(id as string);
  }
  const { id } = await add({ credential: await issuer.credential("ann@example.org", { issuer: named }) });
  w.addedWhileConnected.push(id as string);
  const stored = await byId(id as string);
  t.ok(Value.Check(ExternalBadgeSchema, stored), "the listing's schema");
  t.match(stored, {
    verification_status: "validated",
    issuer_origin: issuer.origin,
    claimed_issuer_name: "Harvard University",
    claimed_issuer_url: null,
  });
  t.notOk("issuer" in stored, "the name is only a claim, beside the origin that was verified");
  const wallet = (await ann.get("/wallet")).text;
  const tile = wallet.slice(wallet.indexOf(`data-external-badge="${id}"`));
  t.match(
    tile,
    new RegExp(`Issuer verified: <strong>${issuer.origin}</strong>`),
    "the wallet shows the verified origin",
  );
  t.match(tile, /Issuer named in the badge \(not verified\): Harvard University/, "and the name as a claim");
});

t.test("a refused form is a 422 page that says why, and stores nothing", async (t) => {
  const before = (await listing()).items.map((b: Json) => b.id);
  const addedBefore = (await listed("employment.external_badges.added")).length;
  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ["no field", {}, /Give the badge.{1,6}s address or paste its credential/],
    [
      "both fields",
      { url: issuer.assertion("ann@example.org"), credential: await issuer.credential("ann@example.org") },
      /Give the badge.{1,6}s address or paste its credential/,
    ],
    ["a javascript: address", { url: "javascript:alert(1)" }, /That is not a web address of a badge/],
    ["a credential that is no JWT", { credential: "not-a-jwt" }, /That is not an Open Badges 3\.0 credential/],
    ["an address already added", { url: w.firstUrl }, /You have already added this badge/],
    [
      "a credential already added, pasted with line breaks",
      { credential: w.vcJwt.replace(/\./g, ".\n") },
      /You have already added this badge/,
    ],
  ];
  for (const [what, fields, message] of refusals) {
    const answer = await ann.post("/wallet/external_badges", fields);
    t.equal(answer.status, 422, what);
    t.match(answer.text, message, `${what}: the page says why`);
    t.match(answer.text, /role="alert"/, `${what}: as an alert`);
  }
  t.same(
    (await listing()).items.map((b: Json) => b.id),
    before,
    "nothing was stored",
  );
  t.equal((await listed("employment.external_badges.added")).length, addedBefore, "nothing was told");
});

t.test("adding, removing and a changed status are told to the employer and delivered", async (t) => {
  const employmentOk = (what: string, e: Json) => {
    t.ok(Value.Check(EmploymentEventDetailSchema, e), `${what}: the detail's schema`);
    t.ok(Value.Check(EmploymentSchema, e.employment), `${what}: the full employment`);
    t.equal(e.employment.id, employee.id, `${what}: Ann's employment`);
    t.equal(e.employment.employee_state, "accepted");
    t.ok(Value.Check(ExternalBadgeSchema, e.external_badge), `${what}: the external badge's schema`);
  };

  const added = await listed("employment.external_badges.added");
  t.same(
    added.map((e) => e.external_badge.id).sort(),
    [...w.addedWhileConnected].sort(),
    "one added event per badge added while connected",
  );
  const listed_ = (await listing()).items;
  for (const e of added) {
    employmentOk("added", e);
    const now = listed_.find((b: Json) => b.id === e.external_badge.id);
    t.same(e.external_badge, now, "the added badge as the employer lists it");
  }

  // Removed.
  const gone = w.addedWhileConnected[0] as string;
  const removal = await ann.post(`/wallet/external_badges/${gone}/remove`, {});
  t.equal(removal.status, 303);
  t.equal(removal.location, "/wallet?done=external_removed#external");
  t.notOk(await byId(gone), "no longer listed");
  const removed = await listed("employment.external_badges.removed");
  t.equal(removed.length, 1);
  employmentOk("removed", removed[0]);
  t.equal(removed[0].external_badge.id, gone);

  // Check again: the issuer has revoked a badge that was validated.
  const url = issuer.assertion("ann@example.org");
  const { id } = await add({ url });
  t.equal((await byId(id as string))?.verification_status, "validated");
  const check = async (): Promise<Json[]> => {
    const answer = await ann.post(`/wallet/external_badges/${id}/check`, {});
    t.equal(answer.location, "/wallet?done=external_checked#external");
    return ofBadge(await listed("employment.external_badges.verification_status_changed"), id as string);
  };
  t.same(await check(), [], "verified again, unchanged: nothing told");
  issuer.serve(new URL(url).pathname, { status: 410, json: { id: url, revoked: true } });
  const changed = await check();
  t.equal(changed.length, 1, "the change is told once");
  employmentOk("verification_status_changed", changed[0]);
  t.match(changed[0].external_badge, { id, verification_status: "unvalidated", verification_reason: "revoked" });
  t.match(await byId(id as string), {
    verification_status: "unvalidated",
    verification_reason: "revoked",
    name: "Rope Access Level 1",
    issuer_origin: null,
    claimed_issuer_name: "Other Academy",
  });
  t.equal((await check()).length, 1, "still revoked: nothing more told");

  const events = [...(await listed("employment.external_badges.added")), ...removed, ...changed];
  const ids = events.map((e) => e.id as string);
  await waitFor("the external badge events at the receiver", () =>
    ids.every((i) => receiver.received.some((r) => r.json.id === i)),
  );
  for (const e of events) {
    const delivery = receiver.received.find((r) => r.json.id === e.id);
    t.equal(delivery?.json.event_type, e.event_type, `${e.event_type} delivered`);
  }
  t.same(receiver.verify([org.secret]), [], "signed");
});

t.test("a badge to an address Ann confirms later is validated when checked again", async (t) => {
  const { id } = await add({ url: issuer.assertion("ann@work.example") });
  t.match(await byId(id as string), { verification_status: "unvalidated", verification_reason: "recipient_mismatch" });
  await ann.get("/account");
  const before = smtp.mails.length;
  t.equal((await ann.post("/account/emails", { email: "ann@work.example" })).status, 303);
  await ann.useMailedLink("ann@work.example", before);
  t.match((await ann.get("/account")).text, /ann@work\.example<\/span> <span class="tag ok">confirmed/);
  const answer = await ann.post(`/wallet/external_badges/${id}/check`, {});
  t.equal(answer.location, "/wallet?done=external_checked#external");
  t.match(await byId(id as string), { verification_status: "validated", verification_reason: null });
  const changed = ofBadge(await listed("employment.external_badges.verification_status_changed"), id as string);
  t.match(changed, [{ external_badge: { id, verification_status: "validated", verification_reason: null } }]);
  w.secondAddress = id as string;
});

/** The re-verification's dependencies as a worker process builds them: the real store and fetcher. */
const wiring = wireExternalBadges(
  readConfig({ WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32" }),
  laurel.db,
);
t.teardown(wiring.close);
const hoursAhead = (h: number) => {
  const now = new Date(Date.now() + h * 3_600_000);
  return { now, newId: uuidv7, newEventId: uuidv7, urls: { publicBase: laurel.origin } };
};
const options = { batch: 50, leaseMs: 600_000, concurrency: 4 };

t.test("the daily re-verification records a change, and only a change", async (t) => {
  const ctx = hoursAhead(25);
  const { now } = ctx;

  const before = new Map((await listing()).items.map((b: Json) => [b.id, b] as const));
  const changedBefore = (await listed("employment.external_badges.verification_status_changed")).length;
  // The first badge's issuer has revoked it since; the VC-JWT's issuer still vouches for it.
  issuer.serve(new URL(w.firstUrl).pathname, { status: 410, json: { id: w.firstUrl, revoked: true } });
  t.equal(before.get(w.first)?.verification_status, "validated");
  t.equal(before.get(w.vc)?.verification_status, "validated");
  t.equal(before.get(w.secondAddress)?.verification_status, "validated");

  t.equal(await reverifyDue(wiring.deps, ctx, options), before.size, "every badge was due a day later");
  const after = new Map((await listing()).items.map((b: Json) => [b.id, b] as const));
  for (const [id, b] of after) {
    t.equal(b.verified_at, now.toISOString(), `${b.name} (${id}) verified again`);
    if (id === w.first || id === w.expiring) continue;
    t.same(
      [b.verification_status, b.verification_reason],
      [before.get(id)?.verification_status, before.get(id)?.verification_reason],
      `${b.name}: unchanged`,
    );
  }
  t.match(after.get(w.first), { verification_status: "unvalidated", verification_reason: "revoked" });
  t.match(after.get(w.expiring), { verification_status: "unvalidated", verification_reason: "expired" });

  const changed = await listed("employment.external_badges.verification_status_changed");
  t.equal(changed.length, changedBefore + 2, "two changes recorded");
  t.match(ofBadge(changed, w.expiring), [{ external_badge: { verification_reason: "expired" } }]);
  const [told] = ofBadge(changed, w.first);
  t.match(told?.external_badge, { id: w.first, verification_status: "unvalidated", verification_reason: "revoked" });
  t.equal(told?.occurred_at, now.toISOString(), "at the worker's time");
  t.same(ofBadge(changed, w.vc), [], "the unchanged VC-JWT recorded nothing");

  t.equal(await reverifyDue(wiring.deps, ctx, options), 0, "nothing is due again the same day");
});

t.test("two workers at once verify each badge once", async (t) => {
  const ctx = hoursAhead(50);
  const all = (await listing()).items;
  const changedBefore = (await listed("employment.external_badges.verification_status_changed")).length;
  // The Guild revokes the badge whose credential Ann added: Laurel's own credential answers 410.
  const revoked = await api("PUT", `/organizations/${guild.id}/badges/${w.guildBadge}/revoke`, guild.auth, {
    reason: "Withdrawn",
  });
  t.equal(revoked.status, 200);
  const small = { ...options, batch: 3, concurrency: 2 };
  const rounds = async (): Promise<number> => {
    let n = 0;
    for (
      let got = await reverifyDue(wiring.deps, ctx, small);
      got > 0;
      got = await reverifyDue(wiring.deps, ctx, small)
    )
      n += got;
    return n;
  };
  const [a, b] = await Promise.all([rounds(), rounds()]);
  t.equal(a + b, all.length, "every badge taken once between the two");
  t.ok(a > 0 && b > 0, `both took some (${a} and ${b})`);
  const changed = await listed("employment.external_badges.verification_status_changed");
  t.equal(changed.length, changedBefore + 1, "one change recorded");
  t.match(ofBadge(changed, w.guildVc), [
    { external_badge: { verification_status: "unvalidated", verification_reason: "revoked" } },
  ]);
  t.match(await byId(w.guildVc), { verification_status: "unvalidated", verification_reason: "revoked" });
});

t.test("another earner can neither check nor remove Ann's badge", async (t) => {
  const bob = earner();
  await bob.signIn("bob@example.org");
  await bob.get("/wallet");
  for (const action of ["check", "remove"]) {
    const answer = await bob.post(`/wallet/external_badges/${w.vc}/${action}`, {});
    t.equal(answer.status, 404, `${action}: not found`);
  }
  t.match(await byId(w.vc), { verification_status: "validated" }, "Ann's badge is still listed, as it was");
});

t.test("once Ann disconnects, the employer sees and is told nothing", async (t) => {
  const removedBefore = (await listed("employment.external_badges.removed")).length;
  await ann.post(`/wallet/employers/${employee.id}/disconnect`, {});
  const rejected = (await api("GET", `/organizations/${org.id}/employees/${employee.id}`, org.auth)).body.data;
  t.equal(rejected.employee_state, "rejected");
  t.same((await listing()).items, [], "the listing is empty again");
  const removal = await ann.post(`/wallet/external_badges/${w.vc}/remove`, {});
  t.equal(removal.status, 303);
  t.notMatch((await ann.get("/wallet")).text, w.vc, "removed from the wallet");
  t.equal((await listed("employment.external_badges.removed")).length, removedBefore, "no removed event");
});
