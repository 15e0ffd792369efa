import t from "tap";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";
import { makeTestCa } from "../support/webhooks.ts";

/**
 * Laurel fetches what earners point it at, so it refuses to be made to hammer a host: a badge
 * already added, or past the account's cap, is refused before anything is fetched, and the
 * verifications an account starts in an hour, and those all accounts send to one host, are
 * counted in the shared rate-limit counter; past either, the wallet says so (429) and nothing is
 * fetched. The other issuer counts the requests it receives.
 */
const ca = makeTestCa();
t.teardown(() => ca.remove());
const smtp = await startSmtpSink();
t.teardown(() => smtp.close());
const laurel = await startLaurel({
  env: {
    SMTP_URL: smtp.url,
    WEBHOOK_CA_FILE: ca.caFile,
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32",
    EXTERNAL_BADGE_CHECKS_PER_ACCOUNT_PER_HOUR: "3",
    EXTERNAL_BADGE_CHECKS_PER_HOST_PER_HOUR: "5",
  },
});
t.teardown(() => laurel.close());
const issuer = await startObIssuer(ca);
t.teardown(issuer.close);

const fetched = (url: string): number => issuer.requests.filter((p) => p === new URL(url).pathname).length;
const alertOf = (text: string): string => /role="alert">([^<]*)</.exec(text)?.[1] ?? "";

t.test("an account's checks in an hour, and a host's, are limited; refusals fetch nothing", async (t) => {
  const ann = httpEarner(laurel.origin, smtp);
  await ann.signIn("ann@example.org");
  await ann.get("/wallet");
  const urls = [1, 2, 3, 4].map(() => issuer.assertion("ann@example.org"));
  for (const url of urls.slice(0, 3)) {
    const added = await ann.submit("/wallet/external_badges", { url });
    t.equal(added.location, "/wallet?done=external_added#external", "added and verified");
  }
  t.equal(fetched(urls[0] as string), 1, "each assertion fetched once");

  const duplicate = await ann.submit("/wallet/external_badges", { url: urls[0] as string });
  t.equal(duplicate.status, 422, "a badge already added");
  t.match(alertOf(duplicate.text), /already added this badge/);
  t.equal(fetched(urls[0] as string), 1, "refused before fetching it again");

  const fourth = await ann.submit("/wallet/external_badges", { url: urls[3] as string });
  t.equal(fourth.status, 429, "the fourth check of the hour");
  t.match(
    alertOf(fourth.text),
    /You have had 3 badges from other issuers checked in the last hour.*try again in \d+ minutes/,
  );
  t.match(fourth.text, new RegExp(`value="${urls[3]}"`), "what was typed is kept");
  t.equal(fetched(urls[3] as string), 0, "nothing fetched");

  const id = /data-external-badge="([0-9a-f-]{36})"/.exec((await ann.get("/wallet")).text)?.[1];
  const before = issuer.requests.length;
  const check = await ann.submit(`/wallet/external_badges/${id}/check`, {});
  t.equal(check.status, 429, "check again counts as well");
  t.match(alertOf(check.text), /You have had 3 badges/);
  t.equal(issuer.requests.length, before, "nothing fetched");

  // Bob's account has its whole budget; the host has had Ann's three (her refused ones never reached it).
  const bob = httpEarner(laurel.origin, smtp);
  await bob.signIn("bob@example.org");
  await bob.get("/wallet");
  const bobs = [1, 2, 3].map(() => issuer.assertion("bob@example.org"));
  for (const url of bobs.slice(0, 2)) {
    const added = await bob.submit("/wallet/external_badges", { url });
    t.equal(added.location, "/wallet?done=external_added#external", "another account adds");
  }
  const past = await bob.submit("/wallet/external_badges", { url: bobs[2] as string });
  t.equal(past.status, 429, "the host's sixth check of the hour");
  t.match(alertOf(past.text), /Laurel has checked as many badges at localhost as it may this hour/);
  t.equal(fetched(bobs[2] as string), 0, "nothing fetched");
});
