import { createHash } from "node:crypto";
import t from "tap";
import { postgresImageStore } from "../../adapters/db/mod.ts";
import {
  badgeImageBaker,
  bakePng,
  DEFAULT_BADGE_IMAGE_PNG,
  DEFAULT_BADGE_IMAGE_SVG,
  readBaked,
  storedBadgeImages,
} from "../../adapters/rest/obi/mod.ts";
import type { BadgeView } from "../../core/issuing/mod.ts";
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
  const baker = badgeImageBaker({ records, images: source, storedImageOf: () => sha(stored) });
  t.same(await baker.types(view), ["png"], "a stored PNG is offered as PNG only");
  t.equal(await baker.bake(view, "svg", "ob2"), null);
  const baked = await baker.bake(view, "png", "ob2");
  t.same(readBaked(baked ?? Buffer.alloc(0)), {
    kind: "assertion",
    text: records.assertion().toString(),
    verify: null,
  });

  const svgBaker = badgeImageBaker({ records, images: source, storedImageOf: () => null });
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
  t.equal(readBaked(DEFAULT_BADGE_IMAGE_PNG), "no_record");
  t.equal(readBaked(Buffer.from("GIF89a")), "not_an_image");
  const broken = Buffer.from(baked ?? Buffer.alloc(0));
  broken[broken.length - 20] = (broken[broken.length - 20] ?? 0) ^ 0xff;
  t.equal(readBaked(broken), "not_an_image", "a bad CRC is not an image");
});
