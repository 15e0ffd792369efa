import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { fetchCredential } from "../support/ob3.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/**
 * A private badge is private everywhere: its page and its hosted Open Badges records answer 404 to
 * anyone, at once, and are served again once the earner makes it public. The earner acts through
 * the pages over HTTP; the records are fetched as a verifier would.
 */
const smtp = await startSmtpSink();
const laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
t.teardown(async () => {
  await laurel.close();
  await smtp.close();
});
const api = apiClient(laurel);

t.test("the hosted records of a private badge answer 404 until it is public again", async (t) => {
  const org = await organization(laurel, "Private Records");
  const template = await createTemplate(laurel, org, { name: "Kept quiet" });
  const email = "pat@example.org";
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, {
      recipient_email: email,
      evidence: [{ type: "UrlEvidence", name: "Medical note", value: "https://evidence.example/private" }],
    }),
  );
  t.equal(issued.status, 201);
  const id = issued.body.data.id as string;
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn(email);
  await earner.post(`/badges/${id}/accept`, { back: "wallet" });

  const assertion = `${laurel.baseUrl}/obi/v2/badge_assertions/${id}`;
  const credential = `${laurel.baseUrl}/obi/v3/credentials/${id}`;
  const page = `${laurel.origin}/badges/${id}`;
  const status = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    const text = await res.text();
    return { status: res.status, text, etag: res.headers.get("etag") };
  };
  const served = await status(assertion);
  t.equal(served.status, 200, "public and accepted: served");
  t.match(served.text, "https://evidence.example/private");
  t.equal((await fetchCredential(credential)).status, 200, "the credential is served and valid");
  t.equal((await status(assertion, { "if-none-match": served.etag ?? "" })).status, 304, "cached, revalidated");

  const wallet = await earner.get("/wallet");
  t.match(wallet.text, `href="${credential}/ldp"`, "the wallet links the credential with its Data Integrity proof");
  t.match(
    wallet.text,
    /Making it private also withdraws its Open Badges records: anyone holding their links, verifiers included, gets “not found” and can no longer verify it/,
    "the wallet says so beside the switch, before it is pressed",
  );

  await earner.post(`/badges/${id}/privacy`, { public: "false", back: "wallet" });
  for (const [what, url, headers] of [
    ["assertion", assertion, {}],
    ["assertion revalidated with its old ETag", assertion, { "if-none-match": served.etag ?? "" }],
    ["assertion as plain JSON", assertion, { accept: "application/json" }],
    ["credential", credential, {}],
    ["credential with its proof", `${credential}/ldp`, {}],
    ["page", page, {}],
  ] as const) {
    const res = await status(url, headers);
    t.equal(res.status, 404, `private: the ${what} is not found`);
    t.notMatch(res.text, "evidence.example", `private: the ${what} shows no evidence`);
  }
  t.match(
    (await earner.get("/wallet")).text,
    /Private · its page and its Open Badges records \(OB 2.0 assertion, OB 3.0 credential\) answer “not found” to everyone/,
  );

  await earner.post(`/badges/${id}/privacy`, { public: "true", back: "wallet" });
  t.equal((await status(assertion)).status, 200, "public again: the assertion is served");
  t.equal((await status(credential)).status, 200, "and the credential");

  // A revoked badge answers 410 to tell verifiers, but not while it is private.
  t.equal((await api("PUT", `${org.badges}/${id}/revoke`, org.auth, { reason: "Expired licence" })).status, 200);
  t.equal((await status(assertion)).status, 410);
  await earner.post(`/badges/${id}/privacy`, { public: "false", back: "wallet" });
  t.equal((await status(assertion)).status, 404, "revoked and private: not found");
  t.equal((await status(credential)).status, 404);
});
