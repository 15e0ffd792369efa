import t from "tap";
import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import {
  BadgeIssueBody,
  type BadgeRecord,
  BadgeReplaceBody,
  BadgeRevokeBody,
  checkBatchItems,
  checkIssue,
  DUPLICATE_BADGE_MESSAGE,
  newBadgeRecord,
  normalizeEmail,
  normalizeIssue,
  parseIssuedAt,
  replacementIssue,
  schemaFieldErrors,
  TemplateCreateBody,
  type TemplateState,
  TemplateUpdateBody,
} from "../../core/badges/mod.ts";
import { resultOf } from "../../core/errors/mod.ts";

t.test("issue rule table", (t) => {
  // [template state, allow duplicates, recipient has a live badge, expected message or null]
  const cases: [TemplateState, boolean, boolean, string | null][] = [
    ["active", false, false, null],
    ["active", false, true, DUPLICATE_BADGE_MESSAGE],
    ["active", true, false, null],
    ["active", true, true, null],
    ["draft", false, false, "The badge template is draft; only an active template can issue badges"],
    ["draft", true, true, "The badge template is draft; only an active template can issue badges"],
    ["archived", false, false, "The badge template is archived; only an active template can issue badges"],
    ["archived", true, true, "The badge template is archived; only an active template can issue badges"],
  ];
  for (const [state, allow, live, expected] of cases) {
    const got = resultOf(() => checkIssue({ id: "t1", state, allow_duplicate_badges: allow }, live));
    const label = `${state} allow=${allow} live=${live}`;
    if (expected === null) t.ok(got.ok, label);
    else {
      t.equal(got.ok ? null : got.error.code, "validation_failed", label);
      t.equal(got.ok ? null : got.error.message, expected, label);
    }
  }
  t.equal(DUPLICATE_BADGE_MESSAGE, "User already has this badge");
  t.end();
});

t.test("parseIssuedAt accepts ISO 8601 with any offset", (t) => {
  const cases: [string, string][] = [
    ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000Z"],
    ["2024-01-02T03:04:05.123Z", "2024-01-02T03:04:05.123Z"],
    ["2024-01-02T03:04:05.1Z", "2024-01-02T03:04:05.100Z"],
    ["2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05.123Z"],
    ["2024-01-02T03:04:05+05:30", "2024-01-01T21:34:05.000Z"],
    ["2024-01-02T03:04:05-08:00", "2024-01-02T11:04:05.000Z"],
    ["2024-01-02T03:04:05.250+01:00", "2024-01-02T02:04:05.250Z"],
    ["2024-01-02T03:04:05+0530", "2024-01-01T21:34:05.000Z"],
    ["2024-01-02T03:04:05+00:00", "2024-01-02T03:04:05.000Z"],
    ["2014-04-01 09:41:00 -0500", "2014-04-01T14:41:00.000Z"],
    ["2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000Z"],
    ["2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"],
    ["0050-06-01T00:00:00Z", "0050-06-01T00:00:00.000Z"],
    [" 2024-01-02T03:04:05Z ", "2024-01-02T03:04:05.000Z"],
  ];
  for (const [input, iso] of cases) {
    const got = parseIssuedAt(input);
    t.equal(typeof got === "number" ? new Date(got).toISOString() : got, iso, input);
  }
  t.end();
});

t.test("parseIssuedAt refuses what is not a real instant", (t) => {
  const bad = [
    "",
    "2024-01-02",
    "2024-01-02T03:04:05", // no offset: ambiguous
    "2024-01-02T03:04Z",
    "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2024-02-30T00:00:00Z",
    "2024-04-31T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-00-10T00:00:00Z",
    "2024-01-00T00:00:00Z",
    "2024-01-02T24:00:00Z",
    "2024-01-02T23:60:00Z",
    "2024-01-02T23:59:60Z",
    "2024-01-02T03:04:05+24:00",
    "2024-01-02T03:04:05+05:60",
    "2024-01-02T03:04:05+5:30",
    "yesterday",
    "1704164645",
  ];
  for (const input of bad) {
    const got = parseIssuedAt(input, "badges.2.issued_at");
    t.ok(typeof got !== "number", input);
    if (typeof got !== "number") t.equal(got.field, "badges.2.issued_at");
  }
  t.end();
});

const ISSUE = {
  badge_template_id: "7D3F2A52-8F0E-4A43-8D8E-3A0B6A3F1C11",
  issued_at: "2024-01-02T03:04:05+05:30",
  issued_to_first_name: " Ada ",
  issued_to_last_name: "Lovelace",
  recipient_email: "Ada@Example.org",
};

t.test("normalizeIssue parses, trims and checks expiry", (t) => {
  const n = normalizeIssue({
    ...ISSUE,
    recipient_email: " Ada@Example.org ",
    issued_to_middle_name: "  ",
    expires_at: "2025-01-02T00:00:00Z",
    evidence: [{ type: "UrlEvidence", name: "Repo", value: "https://git.example/x", description: "" }],
  });
  {
    t.equal(n.issued_at.toISOString(), "2024-01-01T21:34:05.000Z");
    t.equal(n.expires_at?.toISOString(), "2025-01-02T00:00:00.000Z");
    t.equal(n.issued_to_first_name, "Ada");
    t.equal(n.issued_to_middle_name, null);
    t.equal(n.recipient_email, "Ada@Example.org");
    t.equal(n.badge_template_id, "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11");
    t.same(n.evidence, [{ type: "UrlEvidence", name: "Repo", description: null, value: "https://git.example/x" }]);
    t.equal(n.suppress_badge_notification_email, false);
    const r = newBadgeRecord(n, {
      id: "b1",
      organization_id: "o1",
      now: new Date(0),
      recipient_salt: "s",
      issued_by_organization_id: null,
      user_id: null,
      subject_id: "0b7c3e52-1d9a-4f60-9b2e-6c1d2e3f4a5b",
    });
    t.equal(r.state, "pending");
    t.equal(r.replaces_badge_id, null);
    t.equal(r.state_updated_at.getTime(), 0);
  }
  const early = resultOf(() => normalizeIssue({ ...ISSUE, expires_at: "2024-01-01T21:34:05Z" }, "badges.1"));
  t.same(early.ok ? null : early.error.errors, [
    { field: "badges.1.expires_at", message: "must be later than issued_at" },
  ]);
  const many = resultOf(() => normalizeIssue({ ...ISSUE, issued_at: "nope", issued_to_last_name: " " }));
  t.equal(many.ok ? null : many.error.errors.map((e) => e.field).join(), "issued_at,issued_to_last_name");
  t.equal(normalizeEmail("  Ada@Example.ORG "), "ada@example.org");
  t.end();
});

t.test("replacementIssue falls back to the replaced badge", (t) => {
  const old = {
    badge_template_id: "tpl",
    issued_to_first_name: "Ada",
    issued_to_middle_name: "B",
    issued_to_last_name: "Lovelace",
    recipient_email: "ada@example.org",
  } as BadgeRecord;
  t.same(replacementIssue(old, { issued_at: "2024-01-01T00:00:00Z" }), {
    issued_at: "2024-01-01T00:00:00Z",
    badge_template_id: "tpl",
    issued_to_first_name: "Ada",
    issued_to_middle_name: "B",
    issued_to_last_name: "Lovelace",
    recipient_email: "ada@example.org",
  });
  const r = replacementIssue(old, { issued_at: "x", issued_to_middle_name: null, recipient_email: "new@example.org" });
  t.equal(r.issued_to_middle_name, null);
  t.equal(r.recipient_email, "new@example.org");
  t.end();
});

t.test("batch items are checked one by one with indexed paths", (t) => {
  const got = checkBatchItems([
    ISSUE,
    { ...ISSUE, recipient_email: "not-an-email", extra: 1 },
    { ...ISSUE, issued_at: "2024-02-30T00:00:00Z" },
    "junk",
  ]);
  t.same(
    got.map((g) => g.ok),
    [true, false, false, false],
  );
  const second = got[1];
  if (second && !second.ok) {
    t.same(second.error.errors.map((e) => e.field).sort(), ["badges.1.extra", "badges.1.recipient_email"]);
  }
  const third = got[2];
  if (third && !third.ok) t.equal(third.error.errors[0]?.field, "badges.2.issued_at");
  t.end();
});

t.test("schemaFieldErrors names missing keys", (t) => {
  const { recipient_email: _, ...rest } = ISSUE;
  t.same(schemaFieldErrors(BadgeIssueBody, rest), [{ field: "recipient_email", message: "is required" }]);
  t.end();
});

t.test("input schemas", (t) => {
  const cases: [string, TSchema, unknown, boolean][] = [
    ["issue minimal", BadgeIssueBody, ISSUE, true],
    [
      "issue full",
      BadgeIssueBody,
      {
        ...ISSUE,
        issued_to_middle_name: null,
        expires_at: null,
        evidence: [{ type: "UrlEvidence", name: "n", value: "https://e.example/" }],
        issuer_earner_id: "E-1",
        locale: "en-US",
        suppress_badge_notification_email: true,
      },
      true,
    ],
    ["issue unknown key", BadgeIssueBody, { ...ISSUE, colour: "red" }, false],
    ["issue bad uuid", BadgeIssueBody, { ...ISSUE, badge_template_id: "x" }, false],
    ["issue bad email", BadgeIssueBody, { ...ISSUE, recipient_email: "ada" }, false],
    ["issue empty first name", BadgeIssueBody, { ...ISSUE, issued_to_first_name: "" }, false],
    [
      "evidence of another type",
      BadgeIssueBody,
      { ...ISSUE, evidence: [{ type: "IdEvidence", name: "n", value: "https://e.example/" }] },
      false,
    ],
    [
      "evidence javascript url",
      BadgeIssueBody,
      { ...ISSUE, evidence: [{ type: "UrlEvidence", name: "n", value: "javascript:alert(1)" }] },
      false,
    ],
    ["revoke", BadgeRevokeBody, { reason: "Fraud" }, true],
    ["revoke empty", BadgeRevokeBody, { reason: "" }, false],
    ["revoke missing", BadgeRevokeBody, {}, false],
    ["replace minimal", BadgeReplaceBody, { issued_at: "2024-01-01T00:00:00Z" }, true],
    ["replace needs issued_at", BadgeReplaceBody, {}, false],
    ["template create", TemplateCreateBody, { name: "Go", description: "d", skills: ["go"] }, true],
    ["template create active", TemplateCreateBody, { name: "Go", description: "d", state: "active" }, true],
    ["template create archived", TemplateCreateBody, { name: "Go", description: "d", state: "archived" }, false],
    ["template create no name", TemplateCreateBody, { description: "d" }, false],
    [
      "template alignments",
      TemplateCreateBody,
      { name: "Go", description: "d", alignments: [{ name: "A", url: "https://a.example", description: null }] },
      true,
    ],
    ["template bad slug", TemplateCreateBody, { name: "Go", description: "d", vanity_slug: "a b" }, false],
    ["template update empty", TemplateUpdateBody, {}, true],
    ["template update archived", TemplateUpdateBody, { state: "archived", image_url: null }, true],
  ];
  for (const [label, schema, value, ok] of cases) t.equal(Value.Check(schema, value), ok, label);
  t.end();
});
