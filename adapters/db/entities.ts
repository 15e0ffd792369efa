import { EntitySchema } from "@mikro-orm/core";
import type { AuthorizationTokenRecord, OAuthApplicationRecord } from "../../core/credentials/mod.ts";
import type { OrganizationRecord } from "../../core/organizations/mod.ts";

const timestamp = { type: "Date", columnType: "timestamptz(3)" } as const;
const nullableTimestamp = { ...timestamp, nullable: true } as const;

export const OrganizationEntity = new EntitySchema<OrganizationRecord>({
  name: "Organization",
  tableName: "organizations",
  properties: {
    id: { type: "uuid", primary: true },
    name: { type: "text" },
    description: { type: "text", nullable: true },
    email: { type: "text", nullable: true },
    website_url: { type: "text", nullable: true },
    image_url: { type: "text", nullable: true },
    created_at: timestamp,
    updated_at: timestamp,
  },
});

export const OAuthApplicationEntity = new EntitySchema<OAuthApplicationRecord>({
  name: "OAuthApplication",
  tableName: "oauth_applications",
  properties: {
    id: { type: "integer", primary: true, autoincrement: true },
    organization_id: { type: "uuid" },
    name: { type: "text" },
    description: { type: "text", nullable: true },
    uid: { type: "text", unique: true },
    secret_digest: { type: "text" },
    created_by_id: { type: "text" },
    created_by_type: { type: "text" },
    created_by_name: { type: "text" },
    data_services_enabled: { type: "boolean" },
    ceiling_read_enabled: { type: "boolean" },
    ceiling_write_enabled: { type: "boolean" },
    ceiling_delete_enabled: { type: "boolean" },
    ceiling_scopes: { type: "text", nullable: true },
    scopes: { type: "text", nullable: true },
    redirect_uris: { type: "text" },
    created_at: timestamp,
    updated_at: timestamp,
    last_used_at: nullableTimestamp,
    last_successfully_used_at: nullableTimestamp,
  },
});

export const AuthorizationTokenEntity = new EntitySchema<AuthorizationTokenRecord>({
  name: "AuthorizationToken",
  tableName: "authorization_tokens",
  properties: {
    id: { type: "uuid", primary: true },
    organization_id: { type: "uuid" },
    description: { type: "text" },
    token_digest: { type: "text", unique: true },
    token_sealed: { type: "text" },
    read_enabled: { type: "boolean" },
    write_enabled: { type: "boolean" },
    delete_enabled: { type: "boolean" },
    created_at: timestamp,
    expires_at: timestamp,
    revoked_at: nullableTimestamp,
    last_used_at: nullableTimestamp,
    last_successfully_used_at: nullableTimestamp,
  },
});

export const FOUNDATION_ENTITIES = [OrganizationEntity, OAuthApplicationEntity, AuthorizationTokenEntity];
