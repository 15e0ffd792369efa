import { createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import t, { type Test } from "tap";
import { readBaked } from "../../adapters/obi/mod.ts";
import { apiClient, createTemplate, issueBody, organization, trpc } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { fetchCredential, fetchIssuerProfile, fetchVcJwt, issuerKeySet, ob3SchemaErrors } from "../support/ob3.ts";

/**
 * Endorsements end to end: one organization endorses another's template and the other itself; the
 * endorsed side accepts; the EndorsementCredential verifies with the issuer's key set and passes
 * 1EdTech's schema, is embedded in the endorsed achievement and profile (still valid), and leaves
 * them when withdrawn or rejected.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
});
t.teardown(() => laurel.close());

/** A served EndorsementCredential, verified as an OB 3.0 verifier would, and checked against the schema. */
const verifiedEndorsement = async (t: Test, url: string) => {
  const res = await fetchVcJwt(url);
  t.equal(res.status, 200, `${url} is served`);
  t.same(ob3SchemaErrors("endorsement", res.payload), [], "the official EndorsementCredential schema passes");
  return res;
};

t.test(
  "A endorses B's template, B accepts; the credential is embedded in B's badges and leaves when withdrawn",
  async (t) => {
    const a = await organization(laurel, "Endorsing Guild");
    const b = await organization(laurel, "Rust Academy");
    const stranger = await organization(laurel, "Bystander");
    const tpl = await createTemplate(laurel, b, { allow_duplicate_badges: true });
    const issued = await api("POST", b.badges, b.auth, issueBody(tpl.id, { recipient_email: "earner@example.org" }));
    await trpc(laurel, "badges.accept", { badge_id: issued.body.data.id });
    const credentialUrl = `${laurel.baseUrl}/obi/v3/credentials/${issued.body.data.id}`;
    const before = await fetchCredential(credentialUrl);
    // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
    t.notOk((before.payload as any).credentialSubject.achievement.endorsementJwt, "nothing embedded yet");

    const self = await api("POST", `/organizations/${b.id}/endorsements`, b.auth, {
      target_kind: "badge_template",
      target_id: tpl.id,
      comment: "Ours",
    });
    t.equal(self.status, 422, "no endorsement of one's own template");

    const given = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
      target_kind: "badge_template",
      target_id: tpl.id,
      comment: "Rigorous <assessment>",
    });
    t.equal(given.status, 201);
    const e = given.body.data;
    t.match(e, {
      state: "pending",
      endorser_organization_id: a.id,
      endorsed_organization_id: b.id,
      target_name: "Rust",
      credential_url: null,
    });
    const twice = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
      target_kind: "badge_template",
      target_id: tpl.id,
      comment: "Again",
    });
    t.equal(twice.status, 422, "one live endorsement per endorser and target");
    t.equal(
      (await fetchVcJwt(`${laurel.baseUrl}/obi/v3/endorsements/${e.id}`)).status,
      404,
      "a pending one is not published",
    );

    const received = await api("GET", `/organizations/${b.id}/endorsements/received`, b.auth);
    t.same(
      received.body.data.map((x: { id: string }) => x.id),
      [e.id],
    );
    t.equal((await api("GET", `/organizations/${a.id}/endorsements`, a.auth)).body.data[0].id, e.id);

    const byStranger = await api("PUT", `/organizations/${stranger.id}/endorsements/${e.id}/accept`, stranger.auth);
    t.equal(byStranger.status, 404, "a stranger cannot accept it (nor see it)");
    const strangerInB = await api("PUT", `/organizations/${b.id}/endorsements/${e.id}/accept`, stranger.auth);
    t.equal(strangerInB.status, 403, "a stranger's token acts for its own organization only");
    const byEndorser = await api("PUT", `/organizations/${a.id}/endorsements/${e.id}/accept`, a.auth);
    t.equal(byEndorser.status, 403, "the endorser does not accept its own endorsement");

    const accepted = await api("PUT", `/organizations/${b.id}/endorsements/${e.id}/accept`, b.auth);
    t.equal(accepted.status, 200);
    t.equal(accepted.body.data.state, "accepted");
    t.equal(accepted.body.data.credential_url, `${laurel.baseUrl}/obi/v3/endorsements/${e.id}`);

    const served = await verifiedEndorsement(t, accepted.body.data.credential_url);
    // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
    const payload = served.payload as any;
    t.same(payload.type, ["VerifiableCredential", "EndorsementCredential"]);
    t.equal(payload.issuer.id, `${laurel.baseUrl}/obi/v3/issuers/${a.id}`);
    t.equal(payload.credentialSubject.endorsementComment, "Rigorous <assessment>");
    await fetchIssuerProfile(payload.issuer.id);

    const after = await fetchCredential(credentialUrl);
    // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
    const achievement = (after.payload as any).credentialSubject.achievement;
    t.equal(achievement.endorsementJwt?.length, 1, "the accepted endorsement is embedded in the achievement");
    const embedded = achievement.endorsementJwt[0] as string;
    const keys = createLocalJWKSet(await issuerKeySet(payload.issuer.id));
    const verified = await jwtVerify(embedded, keys, { algorithms: ["RS256"] });
    t.same(ob3SchemaErrors("endorsement", verified.payload), [], "the embedded copy verifies and passes the schema");
    // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
    t.equal((verified.payload as any).credentialSubject.id, achievement.id, "its subject is the achievement");

    // The VC-JWT baked into the badge's image embeds it too.
    const image = Buffer.from(
      await (await fetch(`${laurel.origin}/badges/${issued.body.data.id}/image.png?record=ob3`)).arrayBuffer(),
    );
    const baked = readBaked(image);
    t.equal(typeof baked === "object" && baked.kind, "credential");
    const bakedJwt = typeof baked === "object" ? baked.text : "";
    const bakedPayload = decodeJwt(bakedJwt) as { credentialSubject: { achievement: { endorsementJwt?: string[] } } };
    t.same(bakedPayload.credentialSubject.achievement.endorsementJwt, [embedded], "the baked credential embeds it");

    const page = await (await fetch(`${laurel.origin}/badges/${issued.body.data.id}`)).text();
    t.match(
      page,
      /Endorsed by <a href="\/organizations\/[0-9a-f-]+">Endorsing Guild<\/a>/,
      "the badge page names the endorser",
    );
    t.match(page, "Rigorous &lt;assessment>", "and shows its comment, escaped");

    const withdrawByB = await api("DELETE", `/organizations/${b.id}/endorsements/${e.id}`, b.auth);
    t.equal(withdrawByB.status, 403, "only the endorser withdraws");
    const withdrawn = await api("DELETE", `/organizations/${a.id}/endorsements/${e.id}`, a.auth);
    t.equal(withdrawn.status, 204);
    const gone = await fetchVcJwt(`${laurel.baseUrl}/obi/v3/endorsements/${e.id}`);
    t.equal(gone.status, 410);
    const cleared = await fetchCredential(credentialUrl);
    // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
    t.notOk((cleared.payload as any).credentialSubject.achievement.endorsementJwt, "withdrawn: no longer embedded");
    const pageAfter = await (await fetch(`${laurel.origin}/badges/${issued.body.data.id}`)).text();
    t.notMatch(pageAfter, "Endorsing Guild", "nor shown on the badge page");
  },
);

t.test("an organization endorsed: the profile embeds it until B rejects it", async (t) => {
  const a = await organization(laurel, "Standards Body");
  const b = await organization(laurel, "Training Co");
  const given = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
    target_kind: "organization",
    target_id: b.id,
    comment: "A trusted trainer",
  });
  t.equal(given.status, 201);
  const id = given.body.data.id;
  const profileId = `${laurel.baseUrl}/obi/v3/issuers/${b.id}`;
  t.notOk((await fetchIssuerProfile(profileId)).endorsementJwt);
  t.equal((await api("PUT", `/organizations/${b.id}/endorsements/${id}/accept`, b.auth)).status, 200);
  const profile = await fetchIssuerProfile(profileId);
  t.equal(profile.endorsementJwt?.length, 1, "embedded in the profile, which still passes its schema");
  const keys = createLocalJWKSet(await issuerKeySet(profileId));
  const { payload } = await jwtVerify(profile.endorsementJwt[0], keys, { algorithms: ["RS256"] });
  t.same(ob3SchemaErrors("endorsement", payload), []);
  // biome-ignore lint/suspicious/noExplicitAny: a credential's JSON
  t.equal((payload as any).credentialSubject.id, profileId);
  const orgPage = await (await fetch(`${laurel.origin}/organizations/${b.id}`)).text();
  t.match(orgPage, "Endorsed by", "the organization page shows it");
  t.match(orgPage, "A trusted trainer");
  t.equal((await api("PUT", `/organizations/${b.id}/endorsements/${id}/reject`, b.auth)).status, 200);
  t.notMatch(await (await fetch(`${laurel.origin}/organizations/${b.id}`)).text(), "A trusted trainer");
  t.notOk((await fetchIssuerProfile(profileId)).endorsementJwt, "rejected: no longer embedded");
  const bad = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
    target_kind: "organization",
    target_id: "00000000-0000-4000-8000-000000000000",
    comment: "Nobody",
  });
  t.equal(bad.status, 422, "an unknown target is refused");
  const long = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
    target_kind: "organization",
    target_id: b.id,
    comment: "x".repeat(2001),
  });
  t.equal(long.status, 422, "a comment over 2000 characters is refused");
});
