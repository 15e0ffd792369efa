import { createHash } from "node:crypto";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { earnerFlows } from "../support/earner_flows.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * The pending-badge mail's accept link, signed out: only with the mail's token does the page name
 * the recipient, the badge and its issuer. Without it (badge ids are discoverable), or with any
 * other token, the page is the same for every id. Only a keyed digest of the token is stored.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

const page = async (path: string) => {
  const res = await fetch(`${mailed.laurel.origin}${path}`, { headers: { accept: "text/html" }, redirect: "manual" });
  return { status: res.status, text: await res.text(), cacheControl: res.headers.get("cache-control") };
};

t.test("the accept page names nobody without the mail's token", async (t) => {
  const org = await organization(mailed.laurel, "Hidden Issuer");
  const template = await createTemplate(mailed.laurel, org, { name: "Secret Skill" });
  const before = mailed.smtp.mails.length;
  const issued = await apiClient(mailed.laurel)(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "rita@example.org" }),
  );
  const id = issued.body.data.id as string;
  const personal = [/rita@example\.org/, /Secret Skill/, /Hidden Issuer/];
  for (const [label, path] of [
    ["no token", `/badges/${id}/accept`],
    ["another token", `/badges/${id}/accept?token=${"A".repeat(43)}`],
    ["an empty token", `/badges/${id}/accept?token=`],
    ["a token given twice", `/badges/${id}/accept?token=a&token=b`],
  ] as const) {
    const answer = await page(path);
    t.equal(answer.status, 200, `${label}: the sign-in page`);
    for (const p of personal) t.notMatch(answer.text, p, `${label}: nothing personal (${p.source})`);
    t.match(answer.text, new RegExp(`name="next" value="/badges/${id}"`), `${label}: back to the badge after sign-in`);
  }
  // An unknown id gets the same page: no oracle for pending badges either.
  const unknown = await page("/badges/0190a0d8-0000-7000-8000-000000000000/accept");
  t.equal(unknown.status, 200);

  const link = await earnerFlows(() => ({ origin: mailed.laurel.origin, smtp: mailed.smtp })).mailedLink(
    "rita@example.org",
    /https?:\/\/\S+\/badges\/[0-9a-f-]+\/accept\?token=[A-Za-z0-9_-]+/,
    before,
  );
  const url = new URL(link);
  t.equal(url.pathname, `/badges/${id}/accept`, "the mail links to the badge's accept page");
  const token = url.searchParams.get("token") ?? "";

  const withToken = await page(`${url.pathname}${url.search}`);
  t.equal(withToken.status, 200);
  t.match(withToken.text, /value="rita@example\.org"/, "the mail's link pre-fills the address");
  t.match(withToken.text, /Hidden Issuer sent you the badge “Secret Skill”/);
  t.equal(withToken.cacheControl, "no-store", "and is not kept by caches");

  const [row] = (await mailed.laurel.db.all("select accept_token_digest from badges where id = ?", [id])) as {
    accept_token_digest: string | null;
  }[];
  const stored = row?.accept_token_digest ?? "";
  t.ok(stored.length > 0, "a digest is stored");
  t.notOk(stored.includes(token), "not the token");
  t.not(stored, createHash("sha256").update(token).digest("base64url"), "nor its unkeyed hash");
  t.not(stored, createHash("sha256").update(token).digest("hex"));

  // Once decided, even the mail's link names nobody.
  await mailed.laurel.db.run("update badges set state = 'rejected' where id = ?", [id]);
  t.notMatch((await page(`${url.pathname}${url.search}`)).text, /rita@example\.org/, "not pending: nothing personal");
});
