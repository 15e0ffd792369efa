import { type Static, Type } from "typebox";
import { SCOPES } from "../auth/mod.ts";

const Timestamp = Type.String({ description: "ISO 8601, UTC, milliseconds" });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** An OAuth application as the API answers it; `secret` only in the creation answer. */
export const OAuthApplication = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_used_at: NullableTimestamp,
  last_successfully_used_at: NullableTimestamp,
  uid: Type.String(),
  created_by_id: Type.String(),
  created_by_type: Type.String(),
  created_by_name: Type.String(),
  creator_available: Type.Boolean(),
  scopes: Type.String({ description: "Space-separated scopes the token endpoint may grant this application" }),
  redirect_uris: Type.Array(Type.String(), { description: "Where the authorization endpoint may send an earner back" }),
  secret: Type.Union([Type.String(), Type.Null()]),
});
export type OAuthApplication = Static<typeof OAuthApplication>;

/** An authorization token as the API answers it, value included. */
export const AuthorizationToken = Type.Object({
  id: Type.String({ format: "uuid" }),
  token: Type.String(),
  owner_id: Type.String({ format: "uuid" }),
  description: Type.String(),
  write_enabled: Type.Boolean(),
  read_enabled: Type.Boolean(),
  delete_enabled: Type.Boolean(),
  created_at: Timestamp,
  expires_at: Timestamp,
  last_used_at: NullableTimestamp,
  last_successfully_used_at: NullableTimestamp,
  owner: Type.Object({
    type: Type.Literal("Organization"),
    id: Type.String({ format: "uuid" }),
    name: Type.String(),
    url: Type.String(),
  }),
});
export type AuthorizationToken = Static<typeof AuthorizationToken>;

/** The token endpoint's answer (docs/interface.md, Authentication). */
export const AccessToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal("Bearer"),
  expires_in: Type.Integer(),
  scope: Type.String(),
  created_at: Type.Integer(),
});
export type AccessToken = Static<typeof AccessToken>;

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: "\\S" });
const Description = Type.String({ maxLength: 2000 });
const ScopeList = Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), {
  minItems: 1,
  maxItems: SCOPES.length,
  uniqueItems: true,
  description: "The scopes the application may be granted, within its creator's permissions (default: all of them)",
});
const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
  maxItems: 20,
  description: "Absolute https URIs, or http on 127.0.0.1, [::1] or localhost with any port (RFC 8252)",
});

export const CreateOAuthApplicationInput = Type.Object(
  {
    name: Name,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    scopes: Type.Optional(ScopeList),
    redirect_uris: Type.Optional(RedirectUris),
  },
  { additionalProperties: false },
);
export type CreateOAuthApplicationInput = Static<typeof CreateOAuthApplicationInput>;

/** The create input's keys, every one optional, so the two cannot drift apart. */
export const UpdateOAuthApplicationInput = Type.Partial(CreateOAuthApplicationInput, { additionalProperties: false });
export type UpdateOAuthApplicationInput = Static<typeof UpdateOAuthApplicationInput>;

export const CreateAuthorizationTokenInput = Type.Object(
  {
    description: Type.Optional(Description),
    read_enabled: Type.Optional(Type.Boolean()),
    write_enabled: Type.Optional(Type.Boolean()),
    delete_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateAuthorizationTokenInput = Static<typeof CreateAuthorizationTokenInput>;

export const RotateAuthorizationTokenInput = Type.Object(
  { description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type RotateAuthorizationTokenInput = Static<typeof RotateAuthorizationTokenInput>;
