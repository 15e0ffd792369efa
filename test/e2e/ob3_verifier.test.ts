import { BitstringStatusList } from "@digitalbazaar/vc-bitstring-status-list";
import { DOMParser } from "@xmldom/xmldom";
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import extractChunks from "png-chunks-extract";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { ob3SchemaErrors } from "../support/ob3.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * Laurel's OB 3.0 credentials read as a verifier that knows only the specification reads them,
 * with third-party code alone (jose, Ajv with 1EdTech's schemas, Digital Bazaar's status list
 * decoder, @xmldom/xmldom, png-chunks-extract): the header (`alg` RS256, `typ` JWT), the key found
 * in the issuer host's key set by `kid`, the claims against the credential, the credential and
 * the profile its issuer id dereferences to against the official schemas, and the revocation bit
 * in the status list; for an accepted, a revoked and a replaced badge, and for the copies baked
 * into the SVG and the PNG. Subjects stay what verifiers recorded through sign-up and merge.
 */
const smtp = await startSmtpSink();
const laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
t.teardown(async () => {
  await laurel.close();
  await smtp.close();
});
const api = apiClient(laurel);
const org = await organization(laurel, "Verified Academy");
const template = await createTemplate(laurel, org, { name: "Knots", allow_duplicate_badges: true });

// biome-ignore lint/suspicious/noExplicitAny: credentials are JSON
type Doc = any;

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/** The key a VC-JWT's header names, looked up by `kid` in the key set of its issuer's host. */
const keyOf = async (jwt: string): Promise<JWK> => {
  const header = decodeProtectedHeader(jwt);
  const unverified = decodeJwt(jwt) as Doc;
  const issuer = typeof unverified.issuer === "string" ? unverified.issuer : unverified.issuer?.id;
  const res = await fetch(new URL("/.well-known/jwks.json", issuer), {
    headers: { accept: "application/jwk-set+json" },
  });
  if (res.status !== 200) throw new Error(`key set: ${res.status}`);
  const set = (await res.json()) as { keys: JWK[] };
  const key = set.keys.find((k) => k.kid === header.kid);
  if (!key) throw new Error(`no key ${header.kid} in the key set`);
  return key;
};

/** Verifies a VC-JWT as OB 3.0 asks; answers the problems found (none: valid) and the payload. */
const verify = async (jwt: string): Promise<{ problems: string[]; payload: Doc }> => {
  const problems: string[] = [];
  const header = decodeProtectedHeader(jwt);
  if (header.alg !== "RS256") problems.push(`alg ${header.alg}`);
  if (header.typ !== undefined && header.typ !== "JWT") problems.push(`typ ${header.typ}`);
  const { payload } = (await jwtVerify(jwt, await importJWK(await keyOf(jwt), "RS256"), {
    algorithms: ["RS256"],
  })) as { payload: Doc };
  const issuerId = typeof payload.issuer === "string" ? payload.issuer : payload.issuer?.id;
  if (payload.iss !== issuerId) problems.push("iss");
  if (payload.jti !== payload.id) problems.push("jti");
  if (payload.type?.includes("OpenBadgeCredential")) {
    if (typeof payload.sub !== "string" || payload.sub !== payload.credentialSubject?.id) problems.push("sub");
    if (payload.nbf !== seconds(payload.validFrom)) problems.push("nbf");
    problems.push(...ob3SchemaErrors("credential", payload));
  }
  return { problems, payload };
};

/** The issuer profile a credential's `issuer.id` dereferences to, and its problems against the schema. */
const profileOf = async (issuerId: string) => {
  const res = await fetch(issuerId, { headers: { accept: "application/ld+json" } });
  const profile = (await res.json()) as Doc;
  return { status: res.status, profile, problems: ob3SchemaErrors("profile", profile) };
};

/** Whether the credential's revocation bit is set, from its signed status list. */
const revoked = async (credential: Doc): Promise<boolean> => {
  const entry = credential.credentialStatus;
  const res = await fetch(entry.statusListCredential);
  const list = await verify(await res.text());
  t.same(list.problems, [], "the status list verifies");
  t.equal(list.payload.issuer, credential.issuer.id, "the list is the credential issuer's");
  const decoded = await BitstringStatusList.decode({ encodedList: list.payload.credentialSubject.encodedList });
  return decoded.getStatus(Number(entry.statusListIndex));
};

const issue = async (email: string): Promise<string> => {
  const res = await api("POST", org.badges, org.auth, issueBody(template.id, { recipient_email: email }));
  if (res.status !== 201) throw new Error(`issue: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
};
const accept = (id: string) => trpc(laurel, "badges.accept", { badge_id: id });
const credentialUrl = (id: string) => `${laurel.baseUrl}/obi/v3/credentials/${id}`;
/** The credential as its holder received it (the VC-JWT served while the badge was accepted). */
const held = async (id: string): Promise<string> => {
  const res = await fetch(credentialUrl(id));
  if (res.status !== 200) throw new Error(`credential ${id}: ${res.status}`);
  return res.text();
};

t.test("accepted, revoked and replaced: each verifies, its profile and status as a verifier reads them", async (t) => {
  const ids = { accepted: "", revoked: "", replaced: "" };
  for (const k of Object.keys(ids) as (keyof typeof ids)[]) {
    ids[k] = await issue("kim@example.org");
    await accept(ids[k]);
  }
  const jwts = {
    accepted: await held(ids.accepted),
    revoked: await held(ids.revoked),
    replaced: await held(ids.replaced),
  };
  for (const [name, jwt] of Object.entries(jwts)) {
    const header = decodeProtectedHeader(jwt);
    t.same(header, { alg: "RS256", typ: "JWT", kid: header.kid }, `${name}: the header is alg, typ and kid only`);
    const { problems, payload } = await verify(jwt);
    t.same(problems, [], `${name}: verifies, its claims match the credential, valid against the schema`);
    t.equal(payload.issuer.id, `${laurel.baseUrl}/obi/v3/issuers/${org.id}`);
    const profile = await profileOf(payload.issuer.id);
    t.equal(profile.status, 200);
    t.same(profile.problems, [], `${name}: the dereferenced issuer is a valid OB 3.0 Profile`);
    t.equal(profile.profile.id, payload.issuer.id);
    t.ok(profile.profile.type.includes("Profile"));
    t.ok(profile.profile["@context"].includes("https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"));
    t.equal(await revoked(payload), false, `${name}: not revoked yet`);
  }

  t.equal((await api("PUT", `${org.badges}/${ids.revoked}/revoke`, org.auth, { reason: "Withdrawn" })).status, 200);
  const replacement = await api("POST", `${org.badges}/${ids.replaced}/replace`, org.auth, {
    issued_at: new Date().toISOString(),
  });
  t.equal(replacement.status, 201);
  const next = replacement.body.data.id as string;
  await accept(next);

  // What the holders kept still verifies; the status list tells which was revoked.
  const kept = await verify(jwts.accepted);
  t.equal(await revoked(kept.payload), false, "accepted: not revoked");
  const gone = await verify(jwts.revoked);
  t.same(gone.problems, [], "revoked: the signature still verifies");
  t.equal(await revoked(gone.payload), true, "revoked: its bit is set");
  t.equal((await fetch(credentialUrl(ids.revoked))).status, 410, "and its address answers 410");
  const replaced = await verify(jwts.replaced);
  t.equal(await revoked(replaced.payload), false, "replaced: earned, not revoked");
  t.same((await verify(await held(ids.replaced))).problems, [], "and still served, valid");
  const successor = await verify(await held(next));
  t.same(successor.problems, [], "the replacement verifies");
  t.equal(successor.payload.sub, replaced.payload.sub, "and names the same subject");
});

t.test("the subject is not the e-mail; it survives sign-up and merge", async (t) => {
  const before = await issue("lou@example.org");
  const work = await issue("lou@work.example");
  for (const id of [before, work]) await accept(id);
  const subjectOf = async (id: string): Promise<string> => (await verify(await held(id))).payload.sub;
  const lou = await subjectOf(before);
  t.match(lou, /^urn:uuid:[0-9a-f-]{36}$/);
  t.notMatch(lou, /lou|example/, "nothing of the address");
  t.not(await subjectOf(work), lou, "another address with no account: another subject");
  const second = await issue("lou@example.org");
  await accept(second);
  t.equal(await subjectOf(second), lou, "the address keeps its subject before any account");

  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn("lou@example.org");
  t.equal(await subjectOf(before), lou, "sign-up leaves the recorded subject as it was");
  const after = await issue("lou@example.org");
  await accept(after);
  t.equal(await subjectOf(after), lou, "the account took the address's subject over");

  const workSubject = await subjectOf(work);
  const other = httpEarner(laurel.origin, smtp);
  await other.signIn("lou@work.example");
  await earner.mergeIn("lou@work.example");
  t.equal(await subjectOf(work), workSubject, "a merged-away badge keeps the subject verifiers recorded");
  t.equal(await subjectOf(before), lou);
  const merged = await issue("lou@work.example");
  await accept(merged);
  t.equal(await subjectOf(merged), lou, "a new badge to the merged address names the surviving account");
});

t.test("the OB 3.0 SVG and PNG carry the served credential, read back by third-party readers", async (t) => {
  const id = await issue("baked@example.org");
  await accept(id);
  const served = await held(id);
  const download = async (path: string) => Buffer.from(await (await fetch(`${laurel.origin}${path}`)).arrayBuffer());

  const svg = (await download(`/badges/${id}/image.svg?record=ob3`)).toString("utf8");
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const elements = doc.getElementsByTagNameNS("https://purl.imsglobal.org/ob/v3p0", "credential");
  t.equal(elements.length, 1, "one openbadges:credential in the OB 3.0 namespace");
  t.equal(elements[0]?.getAttribute("verify"), served, "its verify attribute is the served VC-JWT");

  const png = await download(`/badges/${id}/image.png?record=ob3`);
  const chunk = extractChunks(png).find(
    (c) => c.name === "iTXt" && Buffer.from(c.data).toString("latin1").startsWith("openbadgecredential\0"),
  );
  const data = Buffer.from(chunk?.data ?? []);
  const language = data.indexOf(0, "openbadgecredential".length + 3);
  const text = data.toString("utf8", data.indexOf(0, language + 1) + 1);
  t.equal(text, served, "the PNG's openbadgecredential iTXt is the same VC-JWT");
  t.same((await verify(text)).problems, [], "which verifies");
});

t.test("LAUREL_CREDENTIAL_ALG=EdDSA: credentials and lists signed EdDSA, found in the same key set", async (t) => {
  const eddsa = await startLaurel({ env: { LAUREL_CREDENTIAL_ALG: "EdDSA" } });
  t.teardown(() => eddsa.close());
  const o = await organization(eddsa, "Edwards College");
  const tpl = await createTemplate(eddsa, o, { name: "Curves" });
  const res = await apiClient(eddsa)(
    "POST",
    o.badges,
    o.auth,
    issueBody(tpl.id, { recipient_email: "ed@example.org" }),
  );
  await trpc(eddsa, "badges.accept", { badge_id: res.body.data.id });
  const jwt = await (await fetch(`${eddsa.baseUrl}/obi/v3/credentials/${res.body.data.id}`)).text();
  const header = decodeProtectedHeader(jwt);
  t.same(header, { alg: "EdDSA", typ: "JWT", kid: header.kid });
  const key = await keyOf(jwt);
  t.match(key, { kty: "OKP", crv: "Ed25519", alg: "EdDSA" });
  const { payload } = (await jwtVerify(jwt, await importJWK(key, "EdDSA"), { algorithms: ["EdDSA"] })) as {
    payload: Doc;
  };
  t.same(ob3SchemaErrors("credential", payload), []);
  const list = await (await fetch(payload.credentialStatus.statusListCredential)).text();
  t.equal(decodeProtectedHeader(list).alg, "EdDSA", "the status list follows the setting");
  const set = (await (await fetch(`${eddsa.origin}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  t.ok(
    set.keys.some((k) => k.kty === "RSA" && k.alg === "RS256"),
    "the RSA key stays in the set: copies signed before still verify",
  );
});
