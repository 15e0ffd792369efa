import { readFileSync } from "node:fs";
import extractChunks from "png-chunks-extract";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { screenshots, seriousViolations } from "../support/browser.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { fetchCredential } from "../support/ob3.ts";

/**
 * Baked badge images: the PNG and SVG an earner downloads carry the hosted OB 2.0 assertion (or
 * the OB 3.0 credential the credential endpoint serves), read back with a chunk reader Laurel
 * does not use (png-chunks-extract) and Chromium's XML parser; a change of the badge is never
 * answered with an older image; and the wallet's "Badges from other issuers" reads such images
 * back and verifies them like a typed address or a pasted credential.
 */
const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, browser, smtp, click, signIn } = stack;
const api = apiClient(laurel);

/** The text of the iTXt (or tEXt) chunk named `keyword`, read from the chunks the library found. */
const pngText = (png: Uint8Array, keyword: string): string | null => {
  for (const chunk of extractChunks(png)) {
    const data = Buffer.from(chunk.data);
    const zero = data.indexOf(0);
    if (data.toString("latin1", 0, zero) !== keyword) continue;
    if (chunk.name === "tEXt") return data.toString("latin1", zero + 1);
    if (chunk.name !== "iTXt") continue;
    if (data[zero + 1] !== 0) throw new Error("a compressed iTXt chunk");
    const language = data.indexOf(0, zero + 3);
    const translated = data.indexOf(0, language + 1);
    return data.toString("utf8", translated + 1);
  }
  return null;
};

const download = async (path: string, cookie = "") => {
  const res = await fetch(`${laurel.origin}${path}`, { headers: cookie ? { cookie } : {} });
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
};
const served = async (url: string) => (await fetch(url)).text();

t.test("baked images carry the hosted records, never an older one, and read back into a wallet", async (t) => {
  const org = await organization(laurel, "Baking Guild");
  const template = await createTemplate(laurel, org, { name: "Sourdough" });
  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "ada@example.org" }),
  );
  t.equal(issued.status, 201);
  const id = issued.body.data.id as string;
  const assertionUrl = `${laurel.baseUrl}/obi/v2/badge_assertions/${id}`;
  const credentialUrl = `${laurel.baseUrl}/obi/v3/credentials/${id}`;

  t.equal((await download(`/badges/${id}/image.png`)).status, 404, "pending: no image");
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn("ada@example.org");
  await earner.post(`/badges/${id}/accept`, { back: "wallet" });

  // PNG, OB 2.0: the assertion byte for byte as hosted.
  const png = await download(`/badges/${id}/image.png`);
  t.equal(png.status, 200);
  t.equal(png.type, "image/png");
  const hosted = await served(assertionUrl);
  t.equal(pngText(png.bytes, "openbadges"), hosted, "the embedded assertion is the hosted one");
  t.equal(pngText(png.bytes, "openbadgecredential"), null, "and only it");
  t.equal(JSON.parse(hosted).id, assertionUrl);

  // PNG, OB 3.0: the credential the endpoint serves.
  const png3 = await download(`/badges/${id}/image.png?record=ob3`);
  const credential = pngText(png3.bytes, "openbadgecredential");
  t.equal(credential, await served(credentialUrl), "the embedded VC-JWT is the served credential");
  t.equal((await fetchCredential(credentialUrl)).status, 200, "which validates");

  // SVG, read by the browser's XML parser.
  const page = await signIn(await browser.newContext(), "ada@example.org");
  const readSvg = async (svg: Buffer) =>
    page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, "image/svg+xml");
      // Each version's record in its own namespace; an OB 3.0 VC-JWT in the `verify` attribute.
      const assertion = doc.getElementsByTagNameNS("http://openbadges.org", "assertion")[0];
      const credential = doc.getElementsByTagNameNS("https://purl.imsglobal.org/ob/v3p0", "credential")[0];
      return {
        error: doc.getElementsByTagName("parsererror").length > 0,
        root: doc.documentElement.localName,
        verify: assertion?.getAttribute("verify") ?? null,
        assertion: assertion?.textContent ?? null,
        credential: credential?.getAttribute("verify") ?? null,
        credentialText: credential?.textContent ?? null,
      };
    }, svg.toString("utf8"));
  const svg = await download(`/badges/${id}/image.svg`);
  t.equal(svg.type, "image/svg+xml");
  t.same(await readSvg(svg.bytes), {
    error: false,
    root: "svg",
    verify: assertionUrl,
    assertion: hosted,
    credential: null,
    credentialText: null,
  });
  const svg3 = await download(`/badges/${id}/image.svg?record=ob3`);
  t.same(await readSvg(svg3.bytes), {
    error: false,
    root: "svg",
    verify: null,
    assertion: null,
    credential: await served(credentialUrl),
    credentialText: "",
  });

  // The pages offer the downloads.
  await page.goto(`${laurel.origin}/badges/${id}`);
  t.equal(await page.getAttribute("#download-h + p + ul a", "href"), `/badges/${id}/image.png`);
  t.same(await seriousViolations(page), [], "the badge page passes axe");
  await screenshots(page, "badge-page-download-image");

  // The credential embeds the template: an edit changes it, and the image follows at once.
  const renamed = await api("PUT", `${org.templates}/${template.id}`, org.auth, { name: "Sourdough, advanced" });
  t.equal(renamed.status, 200);
  const after = pngText((await download(`/badges/${id}/image.png?record=ob3`)).bytes, "openbadgecredential");
  t.not(after, credential, "a template edit is not answered with the older credential");
  t.equal(after, await served(credentialUrl), "but with the credential served now");

  // Private: only its earner downloads it.
  await earner.post(`/badges/${id}/privacy`, { public: "false", back: "wallet" });
  t.equal((await download(`/badges/${id}/image.png`)).status, 404, "private: not for others");
  const cookie = [...earner.cookies()].map(([k, v]) => `${k}=${v}`).join("; ");
  const own = await download(`/badges/${id}/image.png`, cookie);
  t.equal(own.status, 200, "private: for its earner");
  t.equal(JSON.parse(pngText(own.bytes, "openbadges") ?? "{}").id, assertionUrl);
  await earner.post(`/badges/${id}/privacy`, { public: "true", back: "wallet" });

  // The wallet reads baked images back: the PNG with the OB 2.0 assertion, the SVG with the credential.
  await page.goto(`${laurel.origin}/wallet`);
  t.match(await page.textContent("main"), /with the OB 3.0 credential/, "the wallet offers the downloads");
  await page.setInputFiles("#external-image", { name: "badge.png", mimeType: "image/png", buffer: png.bytes });
  await click(page, "Add badge from image");
  t.match(await page.textContent(".notice"), /Badge added and verified/);
  t.match(await page.textContent("#external"), /Sourdough/);
  await page.setInputFiles("#external-image", { name: "badge.svg", mimeType: "image/svg+xml", buffer: svg3.bytes });
  await click(page, "Add badge from image");
  t.match(await page.textContent(".notice"), /Badge added and verified/);
  t.equal(await page.locator("#external .status.ok").count(), 2, "both verified");

  // Bad uploads: said on the page, with what to do.
  const refuse = async (name: string, mimeType: string, buffer: Buffer, pattern: RegExp) => {
    await page.setInputFiles("#external-image", { name, mimeType, buffer });
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.click("button:has-text('Add badge from image')"),
    ]);
    t.equal(answer?.status(), 422, `${name} refused`);
    t.match(await page.textContent("[role=alert]"), pattern);
  };
  const plain = readFileSync(new URL("../../adapters/obi/default_badge_image.png", import.meta.url));
  await refuse("plain.png", "image/png", plain, /carries no Open Badges record/);
  await refuse("notes.txt", "text/plain", Buffer.from("hello"), /not a PNG or SVG image/);
  // Past the limit: refused in the browser as it is chosen, and by the server when sent anyway.
  const huge = Buffer.concat([png.bytes, Buffer.alloc(3 * 1024 * 1024)]);
  await page.setInputFiles("#external-image", { name: "huge.png", mimeType: "image/png", buffer: huge });
  t.match(
    await page.$eval("#external-image", (el) => (el as HTMLInputElement).validationMessage),
    /at most 2 MiB/,
    "the browser says the limit as the file is chosen",
  );
  await page.$eval("#external-image", (el) => (el as HTMLInputElement).setCustomValidity(""));
  const [tooLarge] = await Promise.all([
    page.waitForNavigation(),
    page.click("button:has-text('Add badge from image')"),
  ]);
  t.ok([413, 422].includes(tooLarge?.status() ?? 0), `huge.png refused by the server (${tooLarge?.status()})`);
  t.match(await page.textContent("[role=alert]"), /2 MiB/);
  t.same(await seriousViolations(page), [], "the wallet passes axe");
  await screenshots(page, "wallet-baked-image-upload");

  // Another account: the same image is checked with its issuer, and found issued to someone else.
  const other = await signIn(await browser.newContext(), "bo@example.org");
  await other.goto(`${laurel.origin}/wallet`);
  await other.setInputFiles("#external-image", { name: "badge.png", mimeType: "image/png", buffer: png.bytes });
  await click(other, "Add badge from image");
  t.match(await other.textContent(".notice"), /could not be verified/);
  t.match(await other.textContent("#external"), /issued to an address that is not a confirmed address of your account/);

  // Revoked: no download, and the wallet's copy is found revoked when checked again.
  t.equal((await api("PUT", `${org.badges}/${id}/revoke`, org.auth, { reason: "Burnt" })).status, 200);
  for (const path of [`/badges/${id}/image.png`, `/badges/${id}/image.svg?record=ob3`]) {
    t.equal((await download(path)).status, 404, `revoked: ${path} is not served`);
    t.equal((await download(path, cookie)).status, 404, `revoked: ${path} is not served to its earner either`);
  }
});
