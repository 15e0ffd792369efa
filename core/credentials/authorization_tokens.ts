import { type AuditBy, type AuditRecord, auditRecord, OPERATOR } from "../audit/mod.ts";
import {
  authorizationTokenExpiry,
  type Credential,
  newTokenFlags,
  rotationCaller,
  seesOnlyReadOnlyTokens,
  tokenUsable,
} from "../auth/mod.ts";
import { type CoreError, notFound, unauthenticated } from "../errors/mod.ts";
import { type OrganizationRecord, organizationUrl, type Urls } from "../organizations/mod.ts";
import { isoMillis, isoMillisOrNull, type PageRequest } from "../shared/mod.ts";
import { auditByOf, credentialAudit } from "./oauth_applications.ts";
import type { AuthorizationTokenStore, Context, Page, RevocationBroadcast, SecretBox } from "./ports.ts";
import type { AuthorizationTokenRecord } from "./records.ts";
import type { AuthorizationToken, CreateAuthorizationTokenInput, RotateAuthorizationTokenInput } from "./shapes.ts";

export interface AuthorizationTokenDeps {
  tokens: AuthorizationTokenStore;
  secrets: SecretBox;
  revocations: RevocationBroadcast;
}

/** An authorization token as the API answers it; the list and creation responses both carry the value. */
export const authorizationTokenJson = (
  token: AuthorizationTokenRecord,
  value: string,
  org: OrganizationRecord,
  urls: Urls,
): AuthorizationToken => ({
  id: token.id,
  token: value,
  owner_id: token.organization_id,
  description: token.description,
  write_enabled: token.write_enabled,
  read_enabled: token.read_enabled,
  delete_enabled: token.delete_enabled,
  created_at: isoMillis(token.created_at),
  expires_at: isoMillis(token.expires_at),
  last_used_at: isoMillisOrNull(token.last_used_at),
  last_successfully_used_at: isoMillisOrNull(token.last_successfully_used_at),
  owner: { type: "Organization", id: org.id, name: org.name, url: organizationUrl(urls, org.id) },
});

/** A caller without write and delete sees only the read-only tokens. */
export const listAuthorizationTokens = (
  deps: Pick<AuthorizationTokenDeps, "tokens">,
  caller: Credential,
  page: PageRequest,
): Promise<Page<AuthorizationTokenRecord>> =>
  deps.tokens.list(caller.organizationId, page, { readOnly: seesOnlyReadOnlyTokens(caller) });

const mint = (
  deps: Pick<AuthorizationTokenDeps, "secrets">,
  ctx: Context,
  organizationId: string,
  flags: { read_enabled: boolean; write_enabled: boolean; delete_enabled: boolean },
  description: string,
): { token: AuthorizationTokenRecord; value: string } => {
  const value = deps.secrets.newSecret();
  return {
    value,
    token: {
      id: ctx.newId(),
      organization_id: organizationId,
      description,
      read_enabled: flags.read_enabled,
      write_enabled: flags.write_enabled,
      delete_enabled: flags.delete_enabled,
      token_digest: deps.secrets.digest(value),
      token_sealed: deps.secrets.seal(value),
      created_at: ctx.now,
      expires_at: authorizationTokenExpiry(ctx.now),
      revoked_at: null,
      last_used_at: null,
      last_successfully_used_at: null,
    },
  };
};

const tokenAudit = (
  ctx: Context,
  by: AuditBy,
  action: "authorization_token.created" | "authorization_token.rotated" | "authorization_token.revoked",
  token: AuthorizationTokenRecord,
  more: Record<string, unknown> = {},
): AuditRecord =>
  auditRecord(ctx, by, token.organization_id, action, `authorization_token:${token.id}`, {
    description: token.description,
    read_enabled: token.read_enabled,
    write_enabled: token.write_enabled,
    delete_enabled: token.delete_enabled,
    ...more,
  });

/**
 * What rotating by the token itself and replacing by id both do once `current` is known and allowed:
 * one way to swap a token keeps the two from drifting apart (same permissions, a fresh lifetime, the
 * "rotated" audit naming the replacement, the old value revoked on every process). `lost` is the
 * error each caller answers when `current` was rotated or revoked meanwhile, which differs: the
 * token itself no longer authenticates, while a token managed by id is no longer there.
 */
const replaceToken = async (
  deps: AuthorizationTokenDeps,
  ctx: Context,
  caller: Credential,
  current: AuthorizationTokenRecord,
  description: string,
  lost: () => CoreError,
): Promise<{ token: AuthorizationTokenRecord; value: string }> => {
  const minted = mint(deps, ctx, current.organization_id, current, description);
  const audit = tokenAudit(ctx, auditByOf(ctx, caller), "authorization_token.rotated", current, {
    replacement_id: minted.token.id,
  });
  if (!(await deps.tokens.rotate(current.id, minted.token, ctx.now, audit))) throw lost();
  await deps.revocations.tokenRevoked(current.token_digest);
  return minted;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Revokes one of the organization's tokens (the console's Developers section): it stops working
 * at once, on every process.
 */
export const revokeAuthorizationToken = async (
  deps: AuthorizationTokenDeps,
  ctx: Context,
  caller: Credential | null,
  organizationId: string,
  tokenId: string,
): Promise<void> => {
  if (!UUID.test(tokenId)) throw notFound("Authorization token");
  if (caller) await manageableToken(deps, { ...caller, organizationId }, tokenId);
  const audit = credentialAudit(
    ctx,
    caller,
    organizationId,
    "authorization_token.revoked",
    `authorization_token:${tokenId}`,
  );
  const digest = await deps.tokens.revoke(organizationId, tokenId, ctx.now, audit);
  if (digest === null) throw notFound("Authorization token");
  await deps.revocations.tokenRevoked(digest);
};

/** Creates a token no stronger than its creator (403 otherwise); the creator is unaffected. */
export const createAuthorizationToken = async (
  deps: Pick<AuthorizationTokenDeps, "tokens" | "secrets">,
  ctx: Context,
  caller: Credential,
  input: CreateAuthorizationTokenInput,
): Promise<{ token: AuthorizationTokenRecord; value: string }> => {
  const flags = newTokenFlags(caller, input);
  const minted = mint(deps, ctx, caller.organizationId, flags, input.description ?? "");
  await deps.tokens.insert(
    minted.token,
    tokenAudit(ctx, auditByOf(ctx, caller), "authorization_token.created", minted.token),
  );
  return minted;
};

/** A token made for an organization by an administrator: every permission (the CLI's first token). */
export const createInitialAuthorizationToken = async (
  deps: Pick<AuthorizationTokenDeps, "tokens" | "secrets">,
  ctx: Context,
  organizationId: string,
  description: string,
): Promise<{ token: AuthorizationTokenRecord; value: string }> => {
  const minted = mint(
    deps,
    ctx,
    organizationId,
    { read_enabled: true, write_enabled: true, delete_enabled: true },
    description,
  );
  await deps.tokens.insert(
    minted.token,
    tokenAudit(ctx, ctx.by ?? OPERATOR, "authorization_token.created", minted.token),
  );
  return minted;
};

/**
 * Replaces the calling token with one of the same permissions; the caller stops working
 * at once, on every process.
 */
export const rotateAuthorizationToken = async (
  deps: AuthorizationTokenDeps,
  ctx: Context,
  caller: Credential,
  current: AuthorizationTokenRecord,
  input: RotateAuthorizationTokenInput,
): Promise<{ token: AuthorizationTokenRecord; value: string }> => {
  rotationCaller(caller);
  return replaceToken(deps, ctx, caller, current, input.description ?? current.description, () =>
    unauthenticated("This authorization token has already been rotated"),
  );
};

/** Finds the usable token behind an HTTP Basic username, or null. */
export const findUsableToken = async (
  deps: Pick<AuthorizationTokenDeps, "tokens" | "secrets">,
  value: string,
  now: Date,
): Promise<AuthorizationTokenRecord | null> => {
  const token = await deps.tokens.findByDigest(deps.secrets.digest(value));
  return token && tokenUsable(token, now) ? token : null;
};

export const tokenCredential = (token: AuthorizationTokenRecord): Credential => ({
  kind: "authorization_token",
  organizationId: token.organization_id,
  tokenId: token.id,
  read_enabled: token.read_enabled,
  write_enabled: token.write_enabled,
  delete_enabled: token.delete_enabled,
});

/** One of the caller's organization's live tokens that the caller could have made itself (404 or 403 otherwise). */
export const manageableToken = async (
  deps: Pick<AuthorizationTokenDeps, "tokens">,
  caller: Credential,
  id: string,
): Promise<AuthorizationTokenRecord> => {
  const token = await deps.tokens.get(caller.organizationId, id);
  if (!token || token.revoked_at !== null) throw notFound("Authorization token");
  // A token stronger than the caller is out of its reach: managing it would be climbing through it.
  newTokenFlags(caller, token);
  return token;
};

/**
 * Replaces one of the organization's tokens by id with a new value of the same permissions and a
 * fresh lifetime; the old value stops working at once. Unlike `rotateAuthorizationToken`, the
 * caller need not be the token itself (a member managing the organization's tokens).
 */
export const replaceAuthorizationToken = async (
  deps: AuthorizationTokenDeps,
  ctx: Context,
  caller: Credential,
  id: string,
): Promise<{ token: AuthorizationTokenRecord; value: string }> => {
  const current = await manageableToken(deps, caller, id);
  return replaceToken(deps, ctx, caller, current, current.description, () => notFound("Authorization token"));
};
