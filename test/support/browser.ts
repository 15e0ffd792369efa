import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Debian's chromium-headless-shell (ops/prepare.sh test installs it), never a downloaded browser:
 * Chromium's own headless build, the same Blink as the full browser, for about 40% less CPU than the
 * full browser's headless mode (docs/decisions.md).
 */
export const CHROMIUM = "/usr/bin/chromium-headless-shell";

export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run ops/prepare.sh test`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
};

const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core inside the page; returns the serious and critical violations. */
export const seriousViolations = async (page: Page): Promise<AxeViolation[]> => {
  // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses injected script tags.
  await page.evaluate(readFileSync(axeSource, "utf8"));
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global the script defined
    const result = await (globalThis as any).axe.run(document);
    return result.violations;
  })) as AxeViolation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
};

export const ARTIFACTS = join(new URL("../..", import.meta.url).pathname, "artifacts", "web");

/**
 * One full-page screenshot. Chromium answers "Unable to capture screenshot" when its compositor has
 * no frame yet, as can happen right after a resize on a busy machine: asked again, twice at most.
 */
const screenshot = async (page: Page, path: string): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path, fullPage: true });
      return;
    } catch (err) {
      if (attempt >= 3 || !/Unable to capture screenshot/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
};

/** Screenshots of the page at phone and desktop widths into the ignored artifacts folder. */
export const screenshots = async (page: Page, name: string): Promise<void> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, join(ARTIFACTS, `${name}-phone.png`));
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, join(ARTIFACTS, `${name}-desktop.png`));
  if (size) await page.setViewportSize(size);
};

/**
 * A page in a fresh context that records its dialogs and its requests to a path ending in `/x` (the
 * address hostile payloads load), so a test checks that hostile content stayed inert.
 */
export const watchedPage = async (browser: Browser, dialogs: string[], payloadRequests: string[]): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("request", (r) => {
    if (/\/x$/.test(new URL(r.url()).pathname)) payloadRequests.push(r.url());
  });
  return page;
};
