import { type Static, type TSchema, Type } from "typebox";
import { BADGE_STATES } from "./badge_state.ts";
import { TEMPLATE_STATES } from "./template_state.ts";

/** A field that is sent as JSON null when empty (docs/interface.md, Conventions). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Timestamp = Type.String({ format: "date-time" });
const DateOnly = Type.String({ format: "date" });
const Uuid = Type.String({ format: "uuid" });

export const BadgeStateSchema = Type.Enum(BADGE_STATES);
export const TemplateStateSchema = Type.Enum(TEMPLATE_STATES);

export const AlignmentSchema = Type.Object({
  name: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
});

export const UrlEvidenceSchema = Type.Object({
  type: Type.Literal("UrlEvidence"),
  name: Type.String(),
  description: Nullable(Type.String()),
  value: Type.String(),
});

/** The standard badge shape: the badge as it appears in events and employment details. */
const standardProperties = {
  id: Uuid,
  issued_to: Type.String(),
  issued_to_first_name: Type.String(),
  issued_to_middle_name: Nullable(Type.String()),
  issued_to_last_name: Type.String(),
  issued_at: Timestamp,
  issued_at_date: DateOnly,
  expires_at: Nullable(Timestamp),
  expires_at_date: Nullable(DateOnly),
  state: BadgeStateSchema,
  public: Type.Boolean(),
  badge_url: Type.String(),
  badge_template: Type.Object({
    id: Uuid,
    image: Type.Null(),
    image_url: Nullable(Type.String()),
    description: Type.String(),
    name: Type.String(),
    skills: Type.Array(Type.String()),
  }),
  issuer: Type.Object({
    name: Type.String({ description: "The organization the badge belongs to: its template's owner" }),
    image_url: Nullable(Type.String()),
    authorized_issuer: Nullable(
      Type.Object(
        { id: Uuid, name: Type.String(), image_url: Nullable(Type.String()) },
        { description: "The organization that issued it on the owner's behalf (an authorized issuer)" },
      ),
    ),
  }),
};

export const BadgeStandardShapeSchema = Type.Object(standardProperties);
export type BadgeStandardShape = Static<typeof BadgeStandardShapeSchema>;

/** The REST badge: the standard shape plus what only the issuing organization sees. */
export const BadgeJsonSchema = Type.Object({
  ...standardProperties,
  recipient_email: Type.String(),
  issuer_earner_id: Nullable(Type.String()),
  locale: Nullable(Type.String()),
  notification_message: Nullable(Type.String()),
  evidence: Type.Array(UrlEvidenceSchema),
  revocation_reason: Nullable(Type.String()),
  replaces_badge_id: Nullable(Uuid),
  replacement_badge_id: Nullable(Uuid),
  accept_badge_url: Type.String(),
  state_updated_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  user: Nullable(Type.Object({ id: Uuid })),
});
export type BadgeJson = Static<typeof BadgeJsonSchema>;

/** Also the badge template of `badge_template.*` event details (docs/interface.md, Event details). */
export const BadgeTemplateJsonSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  skills: Type.Array(Type.String()),
  reporting_tags: Type.Array(Type.String()),
  notification_message: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
  url: Nullable(Type.String()),
  vanity_slug: Nullable(Type.String()),
  state: TemplateStateSchema,
  public: Type.Boolean(),
  criteria_url: Nullable(Type.String()),
  global_activity_url: Nullable(Type.String()),
  alignments: Type.Array(AlignmentSchema),
  allow_duplicate_badges: Type.Boolean(),
  badges_count: Type.Integer(),
  owner: Type.Object({ type: Type.Literal("Organization"), id: Uuid, name: Type.String(), url: Type.String() }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type BadgeTemplateJson = Static<typeof BadgeTemplateJsonSchema>;
