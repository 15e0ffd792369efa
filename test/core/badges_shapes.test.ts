import t from "tap";
import { Value } from "typebox/value";
import {
  BadgeJsonSchema,
  type BadgeRecord,
  BadgeStandardShapeSchema,
  BadgeTemplateJsonSchema,
  type BadgeTemplateRecord,
  badgeJson,
  badgeStandardShape,
  badgeTemplateJson,
  fullName,
  type OrganizationRef,
} from "../../core/badges/mod.ts";

const urls = { publicBase: "https://laurel.example" };
const org: OrganizationRef = {
  id: "11111111-1111-4111-8111-111111111111",
  name: "Acme",
  website_url: "https://acme.example",
  image_url: "https://acme.example/logo.png",
  description: "We make things",
  email: "badges@acme.example",
};
const template: BadgeTemplateRecord = {
  id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
  organization_id: org.id,
  name: "Rust",
  description: "Knows Rust",
  skills: ["rust", "systems"],
  reporting_tags: [],
  notification_message: null,
  image_url: "https://cdn.example/rust.png",
  image: null,
  url: null,
  vanity_slug: "rust",
  state: "active",
  public: true,
  criteria_url: "https://acme.example/criteria",
  global_activity_url: null,
  alignments: [{ name: "ESCO", url: "https://esco.example/1", description: null }],
  allow_duplicate_badges: false,
  badges_count: 3,
  created_at: new Date("2024-01-01T00:00:00.000Z"),
  updated_at: new Date("2024-01-05T00:00:00.000Z"),
};
const badge: BadgeRecord = {
  id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  organization_id: org.id,
  badge_template_id: template.id,
  state: "pending",
  public: true,
  issued_to_first_name: "Ada",
  issued_to_middle_name: "King",
  issued_to_last_name: "Lovelace",
  recipient_email: "Ada@Example.org",
  issued_at: new Date("2024-01-01T21:34:05.000Z"),
  expires_at: new Date("2026-01-01T00:00:00.000Z"),
  evidence: [{ type: "UrlEvidence", name: "Repo", description: null, value: "https://git.example/x" }],
  issuer_earner_id: "E-1",
  locale: "en",
  suppress_badge_notification_email: false,
  notification_message: null,
  revocation_reason: null,
  replaces_badge_id: null,
  replacement_badge_id: null,
  user_id: "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
  recipient_salt: "pepper",
  issued_by_organization_id: null,
  subject_id: "0b7c3e52-1d9a-4f60-9b2e-6c1d2e3f4a5b",
  accept_token_digest: null,
  state_updated_at: new Date("2024-01-02T00:00:00.000Z"),
  created_at: new Date("2024-01-02T00:00:00.000Z"),
  updated_at: new Date("2024-01-03T00:00:00.000Z"),
};

t.test("the standard badge shape, exactly", (t) => {
  const s = badgeStandardShape(badge, template, org, urls);
  t.same(s, {
    id: badge.id,
    issued_to: "Ada King Lovelace",
    issued_to_first_name: "Ada",
    issued_to_middle_name: "King",
    issued_to_last_name: "Lovelace",
    issued_at: "2024-01-01T21:34:05.000Z",
    issued_at_date: "2024-01-01",
    expires_at: "2026-01-01T00:00:00.000Z",
    expires_at_date: "2026-01-01",
    state: "pending",
    public: true,
    badge_url: `https://laurel.example/badges/${badge.id}`,
    badge_template: {
      id: template.id,
      image: null,
      image_url: "https://cdn.example/rust.png",
      description: "Knows Rust",
      name: "Rust",
      skills: ["rust", "systems"],
    },
    issuer: { name: "Acme", image_url: "https://acme.example/logo.png", authorized_issuer: null },
  });
  t.ok(Value.Check(BadgeStandardShapeSchema, s));
  const noExpiry = badgeStandardShape({ ...badge, expires_at: null, issued_to_middle_name: null }, template, org, urls);
  t.equal(noExpiry.expires_at, null);
  t.equal(noExpiry.expires_at_date, null);
  t.equal(noExpiry.issued_to, "Ada Lovelace");
  t.ok(Value.Check(BadgeStandardShapeSchema, noExpiry));
  t.notOk(Value.Check(BadgeStandardShapeSchema, { ...s, state: "lost" }));
  t.end();
});

t.test("badge JSON adds the issuer-only fields", (t) => {
  const j = badgeJson({ ...badge, replaces_badge_id: "dddddddd-dddd-4ddd-8ddd-dddddddddddd" }, template, org, urls);
  t.match(j, {
    recipient_email: "Ada@Example.org",
    issuer_earner_id: "E-1",
    locale: "en",
    evidence: [{ type: "UrlEvidence", name: "Repo", description: null, value: "https://git.example/x" }],
    revocation_reason: null,
    replaces_badge_id: "dddddddd-dddd-4ddd-8ddd-dddddddddddd",
    replacement_badge_id: null,
    accept_badge_url: `https://laurel.example/badges/${badge.id}/accept`,
    state_updated_at: "2024-01-02T00:00:00.000Z",
    created_at: "2024-01-02T00:00:00.000Z",
    updated_at: "2024-01-03T00:00:00.000Z",
    user: { id: badge.user_id },
  });
  t.notOk("recipient_salt" in j, "the salt is not part of the REST shape");
  t.ok(Value.Check(BadgeJsonSchema, j));
  const unlinked = badgeJson({ ...badge, user_id: null }, template, org, urls);
  t.equal(unlinked.user, null);
  t.ok(Value.Check(BadgeJsonSchema, unlinked));
  t.end();
});

t.test("badge template JSON", (t) => {
  const j = badgeTemplateJson(template, org, urls);
  t.same(Object.keys(j), [
    "id",
    "name",
    "description",
    "skills",
    "reporting_tags",
    "notification_message",
    "image_url",
    "url",
    "vanity_slug",
    "state",
    "public",
    "criteria_url",
    "global_activity_url",
    "alignments",
    "allow_duplicate_badges",
    "badges_count",
    "owner",
    "created_at",
    "updated_at",
  ]);
  t.same(j.owner, {
    type: "Organization",
    id: org.id,
    name: "Acme",
    url: `https://laurel.example/organizations/${org.id}`,
  });
  t.equal(j.created_at, "2024-01-01T00:00:00.000Z");
  t.ok(Value.Check(BadgeTemplateJsonSchema, j));
  t.end();
});

t.test("fullName skips blanks", (t) => {
  t.equal(fullName("Ada", " ", "Lovelace"), "Ada Lovelace");
  t.equal(fullName(" Ada ", "B", " L "), "Ada B L");
  t.end();
});
