import { createHash } from "node:crypto";
import t from "tap";
import { apiClient, createTemplate, issueBody, type OrgFixture, organization, trpc } from "../support/badges.ts";
import { httpEarner } from "../support/earner_http.ts";
import { badImages, png } from "../support/images.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";
import { fetchCredential } from "../support/ob3.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";

/** Template images over REST: data URIs and multipart, stored, served, and shown in OB records and pages. */
let laurel: TestLaurel;
let api: ReturnType<typeof apiClient>;
let org: OrgFixture;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
t.before(async () => {
  smtp = await startSmtpSink();
  laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
  api = apiClient(laurel);
  org = await organization(laurel, "Images Org");
});
t.teardown(async () => {
  await laurel?.close();
  await smtp?.close();
});

const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString("base64")}`;
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const IMMUTABLE = "public, max-age=31536000, immutable";

const multipart = async (method: string, path: string, fields: Record<string, string>, image?: Buffer) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (image) form.append("image", new Blob([new Uint8Array(image)], { type: "image/png" }), "badge.png");
  const res = await fetch(`${laurel.baseUrl}${path}`, { method, headers: { authorization: org.auth }, body: form });
  return { status: res.status, body: await res.json() };
};

const issuedAndAccepted = async (templateId: string) => {
  const res = await api("POST", org.badges, org.auth, issueBody(templateId, { recipient_email: "img@example.org" }));
  if (res.status !== 201) throw new Error(`issue failed: ${JSON.stringify(res.body)}`);
  await trpc(laurel, "badges.accept", { badge_id: res.body.data.id });
  return res.body.data;
};

t.test("a data URI image is stored, served immutable, and is the image of every record and page", async (t) => {
  const bytes = png(64, 64, [10, 120, 200]);
  const tpl = await createTemplate(laurel, org, { name: "Stored", image: dataUri("image/png", bytes) });
  t.match(tpl.image_url, new RegExp(`/images/${sha(bytes)}\\.png$`), "image_url is the stored image's address");
  const served = await fetch(tpl.image_url);
  t.equal(served.status, 200);
  t.equal(served.headers.get("content-type"), "image/png");
  t.equal(served.headers.get("cache-control"), IMMUTABLE);
  t.same(Buffer.from(await served.arrayBuffer()), bytes, "the address serves the same bytes");

  const badge = await issuedAndAccepted(tpl.id);
  t.equal(badge.badge_template.image_url, tpl.image_url, "the badge's template shape");
  const badgeClassUrl = `${laurel.baseUrl}/obi/v2/badge_classes/${tpl.id}`;
  const badgeClass = await (await fetch(badgeClassUrl)).json();
  t.equal(badgeClass.image.id, tpl.image_url, "OB 2.0 BadgeClass image");
  const credential = await fetchCredential(`${laurel.baseUrl}/obi/v3/credentials/${badge.id}`);
  t.equal(credential.status, 200);
  t.same(
    (credential.payload as { credentialSubject: { achievement: { image: unknown } } }).credentialSubject.achievement
      .image,
    { id: tpl.image_url, type: "Image" },
    "OB 3.0 achievement image",
  );
  const page = await (await fetch(badge.badge_url)).text();
  t.ok(page.includes(`src="${tpl.image_url}"`), "the public badge page shows it");
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn("img@example.org");
  t.ok((await earner.get("/wallet")).text.includes(`src="${tpl.image_url}"`), "the earner's wallet shows it");

  // A new image: the hosted records (cached just above) and the page follow at once.
  const next = png(32, 32, [250, 200, 0]);
  const changed = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, { image: dataUri("image/png", next) });
  t.equal(changed.status, 200);
  t.match(changed.body.data.image_url, new RegExp(`/images/${sha(next)}\\.png$`));
  t.equal((await (await fetch(badgeClassUrl)).json()).image.id, changed.body.data.image_url, "BadgeClass follows");
  const again = await fetchCredential(`${laurel.baseUrl}/obi/v3/credentials/${badge.id}`);
  t.same(
    (again.payload as { credentialSubject: { achievement: { image: { id: string } } } }).credentialSubject.achievement
      .image.id,
    changed.body.data.image_url,
    "OB 3.0 credential follows",
  );
  t.ok((await (await fetch(badge.badge_url)).text()).includes(`src="${changed.body.data.image_url}"`), "page follows");
  const old = await fetch(tpl.image_url);
  t.equal(old.status, 200, "the old address still serves its bytes: it never changes what it serves");

  // An outside address replaces the stored image; `image_url: null` then clears it.
  const outside = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, { image_url: "https://cdn.example/x.png" });
  t.equal(outside.body.data.image_url, "https://cdn.example/x.png");
  t.equal((await (await fetch(badgeClassUrl)).json()).image.id, "https://cdn.example/x.png");
  const cleared = await api("PUT", `${org.templates}/${tpl.id}`, org.auth, { image_url: null });
  t.equal(cleared.body.data.image_url, null);
});

t.test("an SVG as UTF-8 data URI and a PNG as a multipart file part", async (t) => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>';
  const tpl = await createTemplate(laurel, org, {
    name: "Vector",
    image: `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`,
  });
  t.match(tpl.image_url, new RegExp(`/images/${sha(Buffer.from(svg))}\\.svg$`));
  const served = await fetch(tpl.image_url);
  t.equal(served.headers.get("content-type"), "image/svg+xml");
  t.equal(await served.text(), svg);

  const bytes = png(48, 24);
  const created = await multipart(
    "POST",
    org.templates,
    { name: "Uploaded", description: "From a form", state: "active", skills: '["a","b"]', public: "false" },
    bytes,
  );
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.match(created.body.data, { name: "Uploaded", skills: ["a", "b"], public: false, state: "active" });
  t.match(created.body.data.image_url, new RegExp(`/images/${sha(bytes)}\\.png$`));
  const updated = await multipart("PUT", `${org.templates}/${created.body.data.id}`, { name: "Renamed" });
  t.equal(updated.status, 200);
  t.equal(updated.body.data.image_url, created.body.data.image_url, "a PUT without an image keeps it");
  const unknown = await multipart("POST", org.templates, { name: "X", description: "Y", colour: "red" });
  t.equal(unknown.status, 422, "multipart fields are judged by the same schema");
});

t.test("each bad image is a 422 naming the field image, as data URI and as multipart", async (t) => {
  const cases = [
    ...badImages(),
    { what: "an image over 1 MiB", bytes: Buffer.concat([png(8, 8), Buffer.alloc(1024 * 1024)]), type: "image/png" },
  ];
  for (const { what, bytes, type } of cases) {
    const json = await api("POST", org.templates, org.auth, {
      name: "Bad",
      description: "x",
      image: dataUri(type, bytes),
    });
    t.equal(json.status, 422, `${what} (data URI)`);
    t.equal(json.body.data?.errors?.[0]?.field, "image", `${what} (data URI): field image`);
    const form = await multipart("POST", org.templates, { name: "Bad", description: "x" }, bytes);
    t.equal(form.status, 422, `${what} (multipart)`);
    t.equal(form.body.data?.errors?.[0]?.field, "image", `${what} (multipart): field image`);
  }
  const notImage = await api("POST", org.templates, org.auth, {
    name: "Bad",
    description: "x",
    image: "data:text/html;base64,PGh0bWw+",
  });
  t.equal(notImage.status, 422, "a data URI of another type");
  t.equal(notImage.body.data?.errors?.[0]?.field, "image");
  const both = await api("POST", org.templates, org.auth, {
    name: "Bad",
    description: "x",
    image: dataUri("image/png", png(4, 4)),
    image_url: "https://cdn.example/y.png",
  });
  t.equal(both.status, 422, "image and image_url together");
  t.equal(both.body.data?.errors?.[0]?.field, "image");
  const listed = await api("GET", org.templates, org.auth);
  t.notOk(
    listed.body.data.some((x: { name: string }) => x.name === "Bad"),
    "no refused upload made a template",
  );
});

t.test("the OpenAPI document offers image in JSON and multipart bodies", async (t) => {
  const doc = await (await fetch(`${laurel.origin}/openapi.json`)).json();
  for (const [path, method] of [
    ["/v1/organizations/{organization_id}/badge_templates", "post"],
    ["/v1/organizations/{organization_id}/badge_templates/{badge_template_id}", "put"],
  ] as const) {
    const content = doc.paths?.[path]?.[method]?.requestBody?.content ?? {};
    t.ok(content["application/json"]?.schema?.properties?.image, `${method} ${path}: image in JSON`);
    t.ok(content["multipart/form-data"], `${method} ${path}: multipart accepted`);
  }
});
