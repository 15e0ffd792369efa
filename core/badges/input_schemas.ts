import { type Static, Type } from "typebox";
import { HttpUrl } from "../shared/mod.ts";
import { REVOCATION_REASON_MAX } from "./badge_state.ts";
import { Nullable } from "./output_schemas.ts";
import { TEMPLATE_STATES } from "./template_state.ts";

/**
 * REST inputs. Every object refuses unknown keys so a misspelt field is a 422, not silently lost.
 * Length limits are Laurel's own: generous for people, small enough for one row.
 */
const NAME_MAX = 255;
const REPORTING_TAG_MAX = 64;
const NOTIFICATION_MESSAGE_MAX = 2000;
/** The issuer's words in the pending-badge e-mail, shown as they are written (never as markup). */
const NotificationMessage = Nullable(
  Type.String({
    maxLength: NOTIFICATION_MESSAGE_MAX,
    description:
      "Laurel: the issuer's own words in the pending-badge e-mail, at most 2,000 characters; null or blank for none.",
  }),
);
const REPORTING_TAGS_MAX = 20;
const TEXT_MAX = 5000;
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX });
/** Loose on purpose: the domain parser (`parseIssuedAt`) gives the precise message. */
const TimestampInput = Type.String({ minLength: 1, maxLength: 64 });

const AlignmentInput = Type.Object(
  { name: Name, url: HttpUrl, description: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX }))) },
  { additionalProperties: false },
);

/**
 * A template image sent in the JSON body: a `data:` URI of a PNG or an SVG (base64, or
 * percent-encoded text), at most 1 MiB once decoded, judged by its content. A multipart body sends
 * the same as a file part named `image`. `null` drops the stored image.
 */
const ImageDataUri = Type.String({
  maxLength: 1_500_000,
  description:
    "Laurel addition: the template image as a data URI (`data:image/png;base64,...`, `data:image/svg+xml;base64,...` or `data:image/svg+xml;utf8,...`), PNG or SVG, at most 1 MiB decoded. Stored by Laurel and served at the `image_url` the template then shows.",
});

const templateFields = {
  name: Name,
  description: Type.String({ minLength: 1, maxLength: TEXT_MAX }),
  skills: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100 }),
  reporting_tags: Type.Array(Type.String({ minLength: 1, maxLength: REPORTING_TAG_MAX, pattern: "\\S" }), {
    maxItems: REPORTING_TAGS_MAX,
    description: `Laurel: the organization's own labels for its reports (at most ${REPORTING_TAGS_MAX}, ${REPORTING_TAG_MAX} characters each), matched by the badge list's \`badge_templates[reporting_tags]\` filter; repeated tags are kept once.`,
  }),
  image_url: Nullable(HttpUrl),
  image: Nullable(ImageDataUri),
  url: Nullable(HttpUrl),
  vanity_slug: Nullable(Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$" })),
  public: Type.Boolean(),
  criteria_url: Nullable(HttpUrl),
  global_activity_url: Nullable(HttpUrl),
  alignments: Type.Array(AlignmentInput, { maxItems: 50 }),
  allow_duplicate_badges: Type.Boolean(),
};

/** A new template is a draft unless it asks to be `active` at once. */
export const TemplateCreateBody = Type.Object(
  {
    name: templateFields.name,
    description: templateFields.description,
    skills: Type.Optional(templateFields.skills),
    reporting_tags: Type.Optional(templateFields.reporting_tags),
    notification_message: Type.Optional(NotificationMessage),
    image_url: Type.Optional(templateFields.image_url),
    image: Type.Optional(templateFields.image),
    url: Type.Optional(templateFields.url),
    vanity_slug: Type.Optional(templateFields.vanity_slug),
    state: Type.Optional(Type.Enum(["draft", "active"])),
    public: Type.Optional(templateFields.public),
    criteria_url: Type.Optional(templateFields.criteria_url),
    global_activity_url: Type.Optional(templateFields.global_activity_url),
    alignments: Type.Optional(templateFields.alignments),
    allow_duplicate_badges: Type.Optional(templateFields.allow_duplicate_badges),
  },
  { additionalProperties: false },
);
export type TemplateCreateBody = Static<typeof TemplateCreateBody>;

/**
 * The create body's keys, every one optional, so the two cannot drift apart; `state` may name any
 * state here and is checked by `templateStateFromUpdate`.
 */
export const TemplateUpdateBody = Type.Partial(
  Type.Object({ ...TemplateCreateBody.properties, state: Type.Enum(TEMPLATE_STATES) }),
  { additionalProperties: false },
);
export type TemplateUpdateBody = Static<typeof TemplateUpdateBody>;

export const EvidenceInput = Type.Object(
  {
    type: Type.Literal("UrlEvidence"),
    name: Name,
    description: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX }))),
    value: HttpUrl,
  },
  { additionalProperties: false },
);
export type EvidenceInput = Static<typeof EvidenceInput>;

const issueFields = {
  badge_template_id: Type.String({ format: "uuid" }),
  issued_at: TimestampInput,
  issued_to_first_name: Name,
  issued_to_middle_name: Type.Optional(Nullable(Type.String({ maxLength: NAME_MAX }))),
  issued_to_last_name: Name,
  recipient_email: Type.String({ format: "email", maxLength: 254 }),
  expires_at: Type.Optional(Nullable(TimestampInput)),
  evidence: Type.Optional(Type.Array(EvidenceInput, { maxItems: 50 })),
  issuer_earner_id: Type.Optional(Nullable(Type.String({ maxLength: NAME_MAX }))),
  locale: Type.Optional(Nullable(Type.String({ maxLength: 35, pattern: "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$" }))),
  suppress_badge_notification_email: Type.Optional(Type.Boolean()),
  /** In place of the template's message, in this badge's e-mail. */
  notification_message: Type.Optional(NotificationMessage),
};

export const BadgeIssueBody = Type.Object(issueFields, { additionalProperties: false });
export type BadgeIssueBody = Static<typeof BadgeIssueBody>;

export const BATCH_MAX = 100;

/** The documented batch body (OpenAPI). */
export const BadgeBatchBody = Type.Object(
  { badges: Type.Array(BadgeIssueBody, { minItems: 1, maxItems: BATCH_MAX }) },
  { additionalProperties: false },
);
export type BadgeBatchBody = Static<typeof BadgeBatchBody>;

/**
 * The batch body as the route validates it: items are checked one by one with
 * `checkBatchItems`, so one bad item is reported at its index instead of failing the others.
 */
export const BadgeBatchEnvelope = Type.Object(
  { badges: Type.Array(Type.Unknown(), { minItems: 1, maxItems: BATCH_MAX }) },
  { additionalProperties: false },
);
export type BadgeBatchEnvelope = Static<typeof BadgeBatchEnvelope>;

export const BadgeRevokeBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: REVOCATION_REASON_MAX }),
    suppress_revoke_notification_email: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type BadgeRevokeBody = Static<typeof BadgeRevokeBody>;

/**
 * A replacement is a new badge: the issue fields, where the template and recipient default to the
 * replaced badge's (`replacementIssue`), and `issued_at` is still required.
 */
export const BadgeReplaceBody = Type.Object(
  {
    ...issueFields,
    badge_template_id: Type.Optional(issueFields.badge_template_id),
    issued_to_first_name: Type.Optional(issueFields.issued_to_first_name),
    issued_to_last_name: Type.Optional(issueFields.issued_to_last_name),
    recipient_email: Type.Optional(issueFields.recipient_email),
  },
  { additionalProperties: false },
);
export type BadgeReplaceBody = Static<typeof BadgeReplaceBody>;
