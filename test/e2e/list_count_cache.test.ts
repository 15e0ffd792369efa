import t from "tap";
import type { Database } from "../../adapters/db/mod.ts";
import { postgresBadgeStore } from "../../adapters/db/postgres_badge_store.ts";
import { BADGE_LIST, type BadgeListQuery } from "../../core/badges/mod.ts";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { startLaurel } from "../support/laurel.ts";

/**
 * A filtered badge list's `total_count` is counted once per change of the organization: walking
 * the pages of one filter (however it is spelled) counts on the first page only, and a badge
 * issued meanwhile moves the organization's change sequence, so the next page counts again.
 */
t.test("filtered counts are cached while the organization's change sequence stands", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const org = await organization(laurel, "Counted");
  const template = await createTemplate(laurel, org);
  // No notification mail: its `sent` event would move the sequence at a moment of its own.
  const issue = async (email: string) => {
    const res = await api(
      "POST",
      org.badges,
      org.auth,
      issueBody(template.id, { recipient_email: email, suppress_badge_notification_email: true }),
    );
    t.equal(res.status, 201, `issued to ${email}`);
  };
  for (const email of ["a@example.org", "b@example.org", "c@example.org", "d@example.org"]) await issue(email);

  /** Statements the store ran that count. */
  const counted: string[] = [];
  const db = new Proxy(laurel.db, {
    get(target, property, receiver) {
      if (property === "all") {
        return (sql: string, params?: readonly unknown[]) => {
          if (/count\(\*\)/.test(sql)) counted.push(sql);
          return target.all(sql, params);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Database;
  const store = postgresBadgeStore(db);
  const query = (emails: string[]): BadgeListQuery => ({
    filters: { recipient_email_all: { kind: "values", values: emails } },
    sort: [...BADGE_LIST.defaultSort],
    page: 1,
  });
  const ABCE = ["a@example.org", "b@example.org", "c@example.org", "e@example.org"];
  const page = (n: number) => ({ page: n, per: 1, offset: n - 1 });

  const first = await store.listBadges(org.id, query(ABCE), page(1));
  t.equal(first.total, 3, "three badges match");
  t.equal(counted.length, 1, "the first page counts");
  for (const n of [2, 3]) {
    const next = await store.listBadges(org.id, query(ABCE), page(n));
    t.equal(next.total, 3);
    t.equal(next.items.length, 1);
  }
  const respelled = await store.listBadges(org.id, query([...ABCE].reverse()), page(2));
  t.equal(respelled.total, 3);
  t.equal(counted.length, 1, "later pages, and the same filter spelled otherwise, do not count");

  const other = await store.listBadges(org.id, query(["d@example.org"]), page(1));
  t.equal(other.total, 1);
  t.equal(counted.length, 2, "another filter counts for itself");

  await issue("e@example.org");
  const after = await store.listBadges(org.id, query(ABCE), page(2));
  t.equal(after.total, 4, "a badge issued since moves the sequence: the count is fresh");
  t.equal(counted.length, 3, "and counted again once");
  await store.listBadges(org.id, query(ABCE), page(3));
  t.equal(counted.length, 3, "then cached again");
});
