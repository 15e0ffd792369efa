import type { Browser, BrowserContext, Page } from "playwright-core";
import { eventually } from "./badges.ts";
import { launchChromium } from "./browser.ts";
import { startLaurel } from "./laurel.ts";
import { startSmtpSink } from "./smtp_sink.ts";
import { makeTestCa, startReceiver, startTestPipeline, webhookEnv } from "./webhooks.ts";

type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

/** A mail's quoted-printable body as text (soft line breaks joined, `=XX` decoded). */
export const unfold = (data: string): string =>
  data
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/**
 * What an earner does in the browser, for tests that start Laurel and an SMTP sink in `t.before`:
 * both are read through `services` when a step runs, since they exist only from then on.
 */
export const earnerFlows = (services: () => { origin: string; smtp: SmtpSink }) => {
  /** The first link of `pattern` in a mail to `to` among the mails received after the first `after`. */
  /** `timeoutMs`: a mail sent after background work (an export of a large wallet) may take longer. */
  const mailedLink = (to: string, pattern: RegExp, after: number, timeoutMs = 10_000): Promise<string> =>
    eventually(async () => {
      for (const mail of services().smtp.mails.slice(after)) {
        if (!mail.to.some((r) => r.includes(to))) continue;
        const found = unfold(mail.data).match(pattern);
        if (found) return found[0];
      }
      return undefined;
    }, timeoutMs);

  /** The sign-in link mailed to `to` among the mails received after the first `after`. */
  const linkMailedTo = (to: string, after: number): Promise<string> =>
    mailedLink(to, /https?:\/\/\S+\/sign_in\/link\?token=[A-Za-z0-9_-]+/, after);

  /** Opens a mailed link and presses its one button (mail scanners that only open it use nothing). */
  const useLink = async (page: Page, link: string): Promise<void> => {
    await page.goto(link);
    await Promise.all([page.waitForNavigation(), page.click("button:has-text('Continue')")]);
  };

  /** Signs `email` in through the sign-in page and the mailed link; the page ends signed in. */
  const signIn = async (context: BrowserContext, email: string): Promise<Page> => {
    const { origin, smtp } = services();
    const page = await context.newPage();
    await page.goto(`${origin}/sign_in`);
    await page.fill("#email", email);
    const before = smtp.mails.length;
    await page.click("button:has-text('Send me a sign-in link')");
    await page.waitForSelector("h1:has-text('Check your inbox')");
    await useLink(page, await linkMailedTo(email, before));
    return page;
  };

  /** Presses a button (by its label, or `selector`) and waits for the page it leads to. */
  const click = async (page: Page, label: string, selector = `button:has-text('${label}')`): Promise<void> => {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  };

  return { mailedLink, linkMailedTo, useLink, signIn, click };
};

/**
 * What an earner-and-webhook test runs beside it, short of a browser: an SMTP sink, Laurel
 * (sending mail to the sink), an HTTPS receiver answering 200 behind a test CA and the webhook
 * pipeline. `close` stops them all, in the reverse order.
 */
export const startEarnerWebhookServices = async () => {
  const ca = makeTestCa();
  const smtp = await startSmtpSink();
  // The API process fetches other issuers' badges under the webhook rule: the test's loopback
  // servers, behind the test CA, are allowed as they are for the pipeline.
  const laurel = await startLaurel({
    env: { SMTP_URL: smtp.url, WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32" },
  });
  const receiver = await startReceiver(ca);
  receiver.answer = () => ({ status: 200, body: "ok" });
  const pipeline = await startTestPipeline(laurel, webhookEnv(ca));
  const close = async (): Promise<void> => {
    await pipeline.stop();
    await receiver.close();
    await laurel.close();
    await smtp.close();
    ca.remove();
  };
  return { smtp, laurel, receiver, pipeline, ca, close };
};

/** The services of `startEarnerWebhookServices` and Chromium, with the earner's browser steps. */
export const startEarnerWebhookStack = async () => {
  const services = await startEarnerWebhookServices();
  const browser: Browser = await launchChromium();
  const close = async (): Promise<void> => {
    await browser.close();
    await services.close();
  };
  const { smtp, laurel } = services;
  return { ...services, browser, close, ...earnerFlows(() => ({ origin: laurel.origin, smtp })) };
};
