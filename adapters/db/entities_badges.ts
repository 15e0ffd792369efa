import { EntitySchema } from "@mikro-orm/core";
import type { BadgeRecord, BadgeTemplateData } from "../../core/badges/mod.ts";

const timestamp = { type: "Date", columnType: "timestamptz(3)" } as const;
const nullableTimestamp = { ...timestamp, nullable: true } as const;
const nullableText = { type: "text", nullable: true } as const;
const json = { type: "json", columnType: "jsonb" } as const;

/** A template row: the record without `badges_count`, which is counted, not stored. */
export type BadgeTemplateRow = BadgeTemplateData;

/** A badge row: the record plus the keys of the duplicate rule (migration 003). */
export interface BadgeRow extends BadgeRecord {
  /** `normalizeEmail(recipient_email)`. */
  recipient_email_key: string;
  /** Issued while its template refused duplicates. */
  exclusive: boolean;
}

export interface UserRow {
  id: string;
  first_name: string;
  last_name: string;
  created_at: Date;
  updated_at: Date;
}

export interface UserEmailRow {
  email_key: string;
  user_id: string;
  email: string;
  position: number;
  confirmed: boolean;
  created_at: Date;
}

export const BadgeTemplateEntity = new EntitySchema<BadgeTemplateRow>({
  name: "BadgeTemplate",
  tableName: "badge_templates",
  properties: {
    id: { type: "uuid", primary: true },
    organization_id: { type: "uuid" },
    name: { type: "text" },
    description: { type: "text" },
    skills: json,
    image_url: nullableText,
    url: nullableText,
    vanity_slug: nullableText,
    state: { type: "text" },
    public: { type: "boolean" },
    criteria_url: nullableText,
    global_activity_url: nullableText,
    alignments: json,
    allow_duplicate_badges: { type: "boolean" },
    created_at: timestamp,
    updated_at: timestamp,
  },
});

export const BadgeEntity = new EntitySchema<BadgeRow>({
  name: "Badge",
  tableName: "badges",
  properties: {
    id: { type: "uuid", primary: true },
    organization_id: { type: "uuid" },
    badge_template_id: { type: "uuid" },
    state: { type: "text" },
    public: { type: "boolean" },
    issued_to_first_name: { type: "text" },
    issued_to_middle_name: nullableText,
    issued_to_last_name: { type: "text" },
    recipient_email: { type: "text" },
    recipient_email_key: { type: "text" },
    exclusive: { type: "boolean" },
    issued_at: timestamp,
    expires_at: nullableTimestamp,
    evidence: json,
    issuer_earner_id: nullableText,
    locale: nullableText,
    suppress_badge_notification_email: { type: "boolean" },
    revocation_reason: nullableText,
    replaces_badge_id: { type: "uuid", nullable: true },
    replacement_badge_id: { type: "uuid", nullable: true },
    user_id: { type: "uuid", nullable: true },
    recipient_salt: { type: "text" },
    state_updated_at: timestamp,
    created_at: timestamp,
    updated_at: timestamp,
  },
});

export const UserEntity = new EntitySchema<UserRow>({
  name: "User",
  tableName: "users",
  properties: {
    id: { type: "uuid", primary: true },
    first_name: { type: "text" },
    last_name: { type: "text" },
    created_at: timestamp,
    updated_at: timestamp,
  },
});

export const UserEmailEntity = new EntitySchema<UserEmailRow>({
  name: "UserEmail",
  tableName: "user_emails",
  properties: {
    email_key: { type: "text", primary: true },
    user_id: { type: "uuid" },
    email: { type: "text" },
    position: { type: "integer" },
    confirmed: { type: "boolean" },
    created_at: timestamp,
  },
});

export const BADGE_ENTITIES = [BadgeTemplateEntity, BadgeEntity, UserEntity, UserEmailEntity];
