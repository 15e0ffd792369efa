import { writeFileSync } from "node:fs";
import { join } from "node:path";
import extractChunks from "png-chunks-extract";
import pngjs from "pngjs";
import t from "tap";
import { apiClient, createTemplate, issueBody, organization } from "../support/badges.ts";
import { earnerFlows } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { png, withBadCrc } from "../support/images.ts";
import { startLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";
import { startSmtpSink } from "../support/smtp_sink.ts";
import { zipEntries } from "../support/zip_entries.ts";

/**
 * A template image Laurel stored before uploads were decoded (here a PNG whose pixel data's CRC is
 * wrong, written straight into the images table) never costs its earners anything: "Download
 * image" answers the badge baked on the default image, and the whole-account export completes and
 * is mailed, with the badge baked the same way.
 */
const smtp = await startSmtpSink();
const laurel = await startLaurel({ env: { SMTP_URL: smtp.url } });
const dir = tempDir();
t.teardown(async () => {
  await laurel.close();
  await smtp.close();
  dir.remove();
});
const api = apiClient(laurel);
const { mailedLink } = earnerFlows(() => ({ origin: laurel.origin, smtp }));

/** The text of the PNG's iTXt chunk, read with a chunk reader Laurel does not use. */
const itxt = (bytes: Uint8Array): string =>
  Buffer.from(extractChunks(bytes).find((c) => c.name === "iTXt")?.data ?? []).toString("utf8");

t.test("a stored PNG with a bad CRC: its earner downloads a baked image and receives a whole export", async (t) => {
  const org = await organization(laurel, "Damaged Images Ltd");
  const good = png(48, 48, [90, 30, 160]);
  const template = await createTemplate(laurel, org, {
    name: "Pottery",
    image: `data:image/png;base64,${good.toString("base64")}`,
  });
  const sha256 = new URL(template.image_url).pathname.split("/").at(-1)?.split(".")[0];
  // As a row written before uploads were decoded: the same name, a damaged checksum.
  t.equal(await laurel.db.run("update images set bytes = ? where sha256 = ?", [withBadCrc(good), sha256]), 1);

  const issued = await api(
    "POST",
    org.badges,
    org.auth,
    issueBody(template.id, { recipient_email: "ada@example.org" }),
  );
  t.equal(issued.status, 201);
  const id = issued.body.data.id as string;
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn("ada@example.org");
  await earner.post(`/badges/${id}/accept`, { back: "wallet" });
  const hosted = await (await fetch(`${laurel.baseUrl}/obi/v2/badge_assertions/${id}`)).text();

  const res = await fetch(`${laurel.origin}/badges/${id}/image.png`);
  t.equal(res.status, 200, "Download image answers");
  t.equal(res.headers.get("content-type"), "image/png");
  const baked = Buffer.from(await res.arrayBuffer());
  const decoded = pngjs.PNG.sync.read(baked, { checkCRC: true });
  t.same([decoded.width, decoded.height], [200, 200], "a PNG that decodes: the default image");
  t.equal(itxt(baked), `openbadges\0\0\0\0\0${hosted}`, "with the hosted assertion baked in");

  const before = smtp.mails.length;
  await earner.post("/account/export");
  const link = new URL(
    await mailedLink("ada@example.org", /https?:\/\/\S+\/account\/export\/[0-9a-f-]+\?token=[A-Za-z0-9_-]+/, before),
  );
  const zip = await fetch(`${laurel.origin}${link.pathname}${link.search}`);
  t.equal(zip.status, 200, "the export was written and mailed");
  const file = join(dir.path, "export.zip");
  writeFileSync(file, Buffer.from(await zip.arrayBuffer()));
  const entries = await zipEntries(file);
  t.same(
    [...entries.keys()].sort(),
    [
      "profile.json",
      ...[
        "badge-baked.png",
        "badge.json",
        "ob2-assertion.json",
        "ob3-credential.json",
        "ob3-credential.jsonld",
        "ob3-credential.jwt",
      ].map((name) => `badges/${id}/${name}`),
    ].sort(),
    "every file of the badge is there",
  );
  const exported = entries.get(`badges/${id}/badge-baked.png`) ?? Buffer.alloc(0);
  t.equal(pngjs.PNG.sync.read(exported, { checkCRC: true }).width, 200, "the exported image decodes");
  t.equal(itxt(exported), `openbadges\0\0\0\0\0${hosted}`, "and carries the assertion");
});
