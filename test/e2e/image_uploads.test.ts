import { createHash } from "node:crypto";
import t, { type Test } from "tap";
import { apiClient, createTemplate, issueBody, type OrgFixture, organization, trpc } from "../support/badges.ts";
import { hostileSvgs, legitimateSvg } from "../support/images.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/**
 * Uploaded SVGs over REST (data URI and multipart): stored rebuilt from the allow-list, so what is
 * served at the image's address, and the badge image baked from it, carry nothing active and load
 * nothing from elsewhere; the address is the hash of the bytes stored. A legitimate SVG keeps what
 * it draws.
 */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let org: OrgFixture;
t.before(async () => {
  laurel = await startLaurel();
  api = apiClient(laurel);
  org = await organization(laurel, "Vector Guild");
});
t.teardown(async () => {
  await laurel?.close();
});

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const dataUri = (text: string) => `data:image/svg+xml;base64,${Buffer.from(text).toString("base64")}`;

/** What the image's address serves, checked to be named by the hash of those bytes. */
const served = async (t: Test, imageUrl: string): Promise<string> => {
  const res = await fetch(imageUrl);
  t.equal(res.status, 200);
  t.equal(res.headers.get("content-type"), "image/svg+xml");
  const bytes = new Uint8Array(await res.arrayBuffer());
  t.equal(new URL(imageUrl).pathname.split("/").at(-1), `${sha(bytes)}.svg`, "named by the stored bytes");
  return new TextDecoder().decode(bytes);
};

/** The SVG of an accepted badge of the template, with its assertion baked in. */
const bakedSvg = async (templateId: string): Promise<string> => {
  const issued = await api("POST", org.badges, org.auth, issueBody(templateId));
  if (issued.status !== 201) throw new Error(`issue failed: ${JSON.stringify(issued.body)}`);
  await trpc(laurel, "badges.accept", { badge_id: issued.body.data.id });
  const res = await fetch(`${laurel.origin}/badges/${issued.body.data.id}/image.svg`);
  if (res.status !== 200) throw new Error(`the baked SVG answered ${res.status}`);
  return res.text();
};

t.test("each SVG with something active or from elsewhere is stored, served and baked without it", async (t) => {
  for (const { what, text, dangerous } of hostileSvgs()) {
    const created = await api("POST", org.templates, org.auth, {
      name: `Vector: ${what}`,
      description: "An SVG",
      state: "active",
      image: dataUri(text),
    });
    t.equal(created.status, 201, `${what}: stored`);
    const stored = await served(t, created.body.data.image_url);
    t.notMatch(stored, dangerous, `${what}: not in the stored bytes`);
    t.match(stored, /<circle id="c" r="4"\/>/, `${what}: the picture is`);
    const baked = await bakedSvg(created.body.data.id);
    t.notMatch(baked, dangerous, `${what}: not in the baked image`);
    t.match(baked, /<openbadges:assertion verify="[^"]+">/, `${what}: the baked image carries the assertion`);
  }

  // The same through a multipart file part.
  const [first] = hostileSvgs();
  const form = new FormData();
  form.append("name", "Vector upload");
  form.append("description", "An SVG file");
  form.append("image", new Blob([first?.text ?? ""], { type: "image/svg+xml" }), "badge.svg");
  const res = await fetch(`${laurel.baseUrl}${org.templates}`, {
    method: "POST",
    headers: { authorization: org.auth },
    body: form,
  });
  const body = await res.json();
  t.equal(res.status, 201, JSON.stringify(body));
  t.notMatch(await served(t, body.data.image_url), first?.dangerous ?? /./, "multipart: not in the stored bytes");
});

t.test("a legitimate SVG is stored with every element and attribute it draws with", async (t) => {
  const template = await createTemplate(laurel, org, { name: "Gold star", image: dataUri(legitimateSvg) });
  const stored = await served(t, template.image_url);
  t.equal(stored, legitimateSvg.slice(legitimateSvg.indexOf("<svg")).trim(), "the document, less its prolog");
  const elements = (svg: string) => [...svg.matchAll(/<([A-Za-z][\w:]*)/g)].map((m) => m[1]);
  const baked = await bakedSvg(template.id);
  t.same(
    elements(baked).filter((name) => !name?.startsWith("openbadges:")),
    elements(stored),
    "the baked image draws the same elements",
  );
});

t.test("an SVG with a DOCTYPE, or whose root is not svg, is refused naming the field image", async (t) => {
  for (const [what, text] of [
    ["a DOCTYPE with an entity", '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>'],
    ["an HTML page", "<html><body><svg></svg></body></html>"],
    ["two roots", '<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>'],
  ] as const) {
    const res = await api("POST", org.templates, org.auth, { name: "Bad", description: "x", image: dataUri(text) });
    t.equal(res.status, 422, what);
    t.equal(res.body.data?.errors?.[0]?.field, "image", `${what}: field image`);
  }
});
