import type { Flags } from "../auth/mod.ts";

/** An OAuth application as stored: the secret only as its keyed digest. */
export interface OAuthApplicationRecord {
  id: number;
  organization_id: string;
  name: string;
  description: string | null;
  uid: string;
  secret_digest: string;
  created_by_id: string;
  created_by_type: string;
  created_by_name: string;
  data_services_enabled: boolean;
  /** The ceiling of the credential that created it (see `Ceiling` in core/auth). */
  ceiling_read_enabled: boolean;
  ceiling_write_enabled: boolean;
  ceiling_delete_enabled: boolean;
  /** Space-separated scopes of the creating access token; null when an authorization token created it. */
  ceiling_scopes: string | null;
  /** Space-separated scopes it may be granted, within the ceiling; null for every one within it. */
  scopes: string | null;
  /** Space-separated registered redirect URIs (empty when none). */
  redirect_uris: string;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  last_successfully_used_at: Date | null;
}

/** An authorization token as stored: a digest to find it by and the value sealed (AES-256-GCM). */
export interface AuthorizationTokenRecord extends Flags {
  id: string;
  organization_id: string;
  description: string;
  token_digest: string;
  token_sealed: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_successfully_used_at: Date | null;
}
