import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import type { Test } from "tap";
import type { Role } from "../../core/members/mod.ts";
import { launchChromium, screenshots, seriousViolations } from "./browser.ts";
import { earnerFlows } from "./earner_flows.ts";
import { httpEarner } from "./earner_http.ts";
import { startLaurel, type TestLaurel } from "./laurel.ts";
import { startSmtpSink } from "./smtp_sink.ts";

type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

/** The account id of a signed-up address. */
export const accountOf = async (laurel: TestLaurel, email: string): Promise<string> => {
  const row = await laurel.db.one<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    email.trim().toLowerCase(),
  ]);
  if (!row) throw new Error(`no account for ${email}`);
  return row.user_id;
};

/** Makes the account of `email` a member of the organization with `role` (an operator's fixture). */
export const makeMember = async (laurel: TestLaurel, organizationId: string, email: string, role: Role) => {
  const userId = await accountOf(laurel, email);
  const now = new Date();
  await laurel.db.run(
    `insert into memberships (id, organization_id, user_id, role, created_at, updated_at)
     values (?::uuid, ?::uuid, ?::uuid, ?, ?, ?)
     on conflict (organization_id, user_id) do update set role = excluded.role`,
    [randomUUID(), organizationId, userId, role, now, now],
  );
};

/** A signed-in browser (HTTP only) of a member with `role`. */
export const signedInMember = async (
  laurel: TestLaurel,
  smtp: SmtpSink,
  organizationId: string,
  email: string,
  role: Role | null,
) => {
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn(email);
  if (role) await makeMember(laurel, organizationId, email, role);
  return earner;
};

/** Screenshots of the page at phone and desktop width as `${prefix}-${name}`, and no serious axe violation. */
export const look = async (t: Test, page: Page, name: string, prefix = "console"): Promise<void> => {
  await screenshots(page, `${prefix}-${name}`);
  t.same(await seriousViolations(page), [], `${name}: no serious axe violation`);
};

/**
 * Laurel mailing to an SMTP sink, and Chromium: what every browser test of the console and of the
 * earner's pages starts, closed when the file's tests end (whatever a failed start opened, too).
 */
export const startBrowserLaurel = async (
  tap: { teardown(fn: () => Promise<void>): void },
  opts: { env?: Record<string, string>; importWorker?: boolean } = {},
) => {
  const started: { smtp?: SmtpSink; laurel?: TestLaurel; browser?: Browser } = {};
  tap.teardown(async () => {
    await started.browser?.close();
    await started.laurel?.close();
    await started.smtp?.close();
  });
  const smtp = await startSmtpSink();
  started.smtp = smtp;
  const laurel = await startLaurel({ importWorker: opts.importWorker, env: { SMTP_URL: smtp.url, ...opts.env } });
  started.laurel = laurel;
  const browser = await launchChromium();
  started.browser = browser;
  const flows = earnerFlows(() => ({ origin: laurel.origin, smtp }));

  /** A member of the organization with `role`, signed in in a fresh browser context. */
  const memberPage = async (organizationId: string, email: string, role: Role): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await flows.signIn(context, email);
    await makeMember(laurel, organizationId, email, role);
    return page;
  };

  return { smtp, laurel, browser, flows, memberPage };
};
