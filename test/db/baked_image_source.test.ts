import { createHash } from "node:crypto";
import t from "tap";
import { postgresImageStore } from "../../adapters/db/mod.ts";
import { decodedPng } from "../../adapters/images/mod.ts";
import {
  badgeImageBaker,
  bakePng,
  DEFAULT_BADGE_IMAGE_PNG,
  DEFAULT_BADGE_IMAGE_SVG,
  readBaked,
  storedBadgeImages,
} from "../../adapters/obi/mod.ts";
import type { BadgeView } from "../../core/issuing/mod.ts";
import { hostileSvgs, png, withBadCrc } from "../support/images.ts";
import { openStoreDatabase } from "../support/store_database.ts";

// The image a badge is baked from, on real PostgreSQL: a template's stored image (by its SHA-256
// in the images table) in its own type only, else the default image as PNG and SVG.
const db = await openStoreDatabase(t);

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

t.test("a stored PNG is baked; an unknown or absent one falls back to the default image", async (t) => {
  const store = postgresImageStore(db);
  // A stored PNG other than the default one: the default with a text chunk of its own.
  const stored = bakePng(DEFAULT_BADGE_IMAGE_PNG, "ob3", "unrelated");
  await store.put(sha(stored), "image/png", stored, new Date());
  const source = storedBadgeImages(store);

  t.same(
    (await source(sha(stored))).map((i) => [i.type, i.key]),
    [["png", sha(stored)]],
  );
  t.same(
    (await source(null)).map((i) => [
      i.type,
      i.bytes.equals(i.type === "png" ? DEFAULT_BADGE_IMAGE_PNG : DEFAULT_BADGE_IMAGE_SVG),
    ]),
    [
      ["png", true],
      ["svg", true],
    ],
  );
  t.same(
    (await source("0".repeat(64))).map((i) => i.key),
    ["default", "default"],
    "an unknown image: the default",
  );

  const view = { badge: { id: "b1" } } as unknown as BadgeView;
  const records = {
    assertion: () => Buffer.from('{"id":"https://laurel.example/a/b1","note":"]]> & <x>"}'),
    assertionUrl: () => "https://laurel.example/a/b1",
    credentialPayload: () => "{}",
    credential: async () => "h.p.s",
  };
  const proven = '{"id":"https://laurel.example/c/b1","proof":{"type":"DataIntegrityProof","note":"]]>"}}';
  const dataIntegrity = { signed: async () => Buffer.from(proven) };
  const baker = badgeImageBaker({ records, dataIntegrity, images: source, storedImageOf: () => sha(stored) });
  t.same(await baker.types(view), ["png"], "a stored PNG is offered as PNG only");
  t.equal(await baker.bake(view, "svg", "ob2"), null);
  const baked = await baker.bake(view, "png", "ob2");
  t.same(readBaked(baked ?? Buffer.alloc(0)), {
    kind: "assertion",
    text: records.assertion().toString(),
    verify: null,
  });

  const svgBaker = badgeImageBaker({ records, dataIntegrity, images: source, storedImageOf: () => null });
  const svg = await svgBaker.bake(view, "svg", "ob2");
  t.same(
    readBaked(svg ?? Buffer.alloc(0)),
    { kind: "assertion", text: records.assertion().toString(), verify: "https://laurel.example/a/b1" },
    "text holding the CDATA end survives",
  );
  t.same(readBaked((await svgBaker.bake(view, "svg", "ob3")) ?? Buffer.alloc(0)), {
    kind: "credential",
    text: "h.p.s",
  });
  for (const [type, bakerOf] of [
    ["png", baker],
    ["svg", svgBaker],
  ] as const) {
    t.same(
      readBaked((await bakerOf.bake(view, type, "ob3_ldp")) ?? Buffer.alloc(0)),
      { kind: "credential", text: proven },
      `${type}: the credential with its Data Integrity proof, as JSON`,
    );
  }
  t.equal(readBaked(DEFAULT_BADGE_IMAGE_PNG), "no_record");
  t.equal(readBaked(Buffer.from("GIF89a")), "not_an_image");
  const broken = Buffer.from(baked ?? Buffer.alloc(0));
  broken[broken.length - 20] = (broken[broken.length - 20] ?? 0) ^ 0xff;
  t.equal(readBaked(broken), "not_an_image", "a bad CRC is not an image");
});

t.test("an image stored before uploads were decoded or rebuilt bakes: on the default when it cannot", async (t) => {
  const store = postgresImageStore(db);
  const damaged = withBadCrc(png(32, 32));
  const [active] = hostileSvgs();
  const legacySvg = Buffer.from(active?.text ?? "");
  const twoRoots = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>');
  // As rows written before the checks existed: straight into the table.
  for (const [bytes, type] of [
    [damaged, "image/png"],
    [legacySvg, "image/svg+xml"],
    [twoRoots, "image/svg+xml"],
  ] as const) {
    await store.put(sha(bytes), type, bytes, new Date());
  }
  const warnings: Array<{ obj: { sha256?: string }; msg: string }> = [];
  const log = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
  const records = {
    assertion: (view: BadgeView) => Buffer.from(`{"id":"https://laurel.example/a/${view.badge.id}"}`),
    assertionUrl: (id: string) => `https://laurel.example/a/${id}`,
    credentialPayload: () => "{}",
    credential: async () => "h.p.s",
  };
  let image = sha(damaged);
  const baker = badgeImageBaker({
    records,
    dataIntegrity: { signed: async () => Buffer.from("{}") },
    images: storedBadgeImages(store),
    storedImageOf: () => image,
    log,
  });
  const view = (id: string) => ({ badge: { id } }) as unknown as BadgeView;

  t.same(await baker.types(view("b1")), ["png"], "still offered as a PNG");
  for (const id of ["b1", "b2"]) {
    const baked = (await baker.bake(view(id), "png", "ob2")) ?? Buffer.alloc(0);
    t.same(readBaked(baked), { kind: "assertion", text: records.assertion(view(id)).toString(), verify: null }, id);
    t.same(decodedPng(baked), { width: 200, height: 200 }, `${id}: the default image, and it decodes`);
  }
  t.same(
    warnings.map((w) => w.obj.sha256),
    [sha(damaged)],
    "the damaged image is logged once, with its SHA-256",
  );

  image = sha(legacySvg);
  const svg = ((await baker.bake(view("b3"), "svg", "ob2")) ?? Buffer.alloc(0)).toString("utf8");
  t.notMatch(svg, active?.dangerous ?? /./, "an SVG stored before the rebuild is baked rebuilt");
  t.match(svg, /<circle id="c" r="4"\/>/, "with its picture");
  t.same(readBaked(Buffer.from(svg)), {
    kind: "assertion",
    text: records.assertion(view("b3")).toString(),
    verify: "https://laurel.example/a/b3",
  });

  image = sha(twoRoots);
  const fallback = (await baker.bake(view("b4"), "svg", "ob2")) ?? Buffer.alloc(0);
  t.ok(fallback.toString("utf8").includes("<title>Badge</title>"), "an SVG that is not one document: the default");
  t.equal(readBaked(fallback) !== "not_an_image" && readBaked(fallback) !== "no_record", true);
  t.same(
    warnings.map((w) => w.obj.sha256),
    [sha(damaged), sha(twoRoots)],
  );
});
