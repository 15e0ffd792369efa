import { type AuditAction, type AuditBy, type AuditRecord, auditRecord, byCredential, OPERATOR } from "../audit/mod.ts";
import {
  allowedScopes,
  type Ceiling,
  type Credential,
  ceilingOf,
  checkScopeList,
  formatScopes,
  isScope,
  type Scope,
  scopesWithinCeiling,
} from "../auth/mod.ts";
import { notFound, orNotFound } from "../errors/mod.ts";
import type { OrganizationRecord } from "../organizations/mod.ts";
import { isoMillis, isoMillisOrNull, type PageRequest } from "../shared/mod.ts";
import type { Context, OAuthApplicationStore, Page, RevocationBroadcast, SecretBox } from "./ports.ts";
import type { OAuthApplicationRecord } from "./records.ts";
import { checkRedirectUris, redirectUriList } from "./redirect_uris.ts";
import type { CreateOAuthApplicationInput, OAuthApplication, UpdateOAuthApplicationInput } from "./shapes.ts";

/** Who the audit log names for a change: the context's actor, else the calling credential. */
export const auditByOf = (ctx: Pick<Context, "by">, caller: Credential | null): AuditBy =>
  ctx.by ?? (caller ? byCredential(caller, null) : OPERATOR);

/** The audit row of a change to the organization's credentials made by `caller` (or as `ctx.by` says). */
export const credentialAudit = (
  ctx: Context,
  caller: Credential | null,
  organizationId: string,
  action: AuditAction,
  target: string,
  details?: Record<string, unknown>,
): AuditRecord => auditRecord(ctx, auditByOf(ctx, caller), organizationId, action, target, details);

const scopeList = (stored: string | null): Scope[] | null =>
  stored === null ? null : stored.split(" ").filter(isScope);

/** The ceiling recorded on an application. */
export const applicationCeiling = (app: OAuthApplicationRecord): Ceiling => ({
  flags: {
    read_enabled: app.ceiling_read_enabled,
    write_enabled: app.ceiling_write_enabled,
    delete_enabled: app.ceiling_delete_enabled,
  },
  scopes: scopeList(app.ceiling_scopes),
});

/** The scopes the token endpoint may grant this application. */
export const applicationScopes = (app: OAuthApplicationRecord): Scope[] =>
  allowedScopes({ ceiling: applicationCeiling(app), scopes: scopeList(app.scopes) });

const checkedScopes = (requested: Scope[] | undefined, ceiling: Ceiling, caller: Credential): string | null => {
  if (requested === undefined) return null;
  return formatScopes(checkScopeList(requested, ceiling, caller));
};

const checkedRedirectUris = (uris: readonly string[] | undefined): string | null => {
  if (uris === undefined) return null;
  return checkRedirectUris(uris);
};

/** The OAuth application as the API answers it, with `scopes` (what it may be granted); `secret` only on creation. */
export const oauthApplicationJson = (app: OAuthApplicationRecord, secret: string | null = null): OAuthApplication => ({
  id: app.id,
  name: app.name,
  description: app.description,
  created_at: isoMillis(app.created_at),
  updated_at: isoMillis(app.updated_at),
  last_used_at: isoMillisOrNull(app.last_used_at),
  last_successfully_used_at: isoMillisOrNull(app.last_successfully_used_at),
  uid: app.uid,
  created_by_id: app.created_by_id,
  created_by_type: app.created_by_type,
  created_by_name: app.created_by_name,
  creator_available: true,
  scopes: formatScopes(applicationScopes(app)),
  redirect_uris: redirectUriList(app.redirect_uris),
  secret,
});

export interface OAuthApplicationDeps {
  apps: OAuthApplicationStore;
  secrets: SecretBox;
  revocations: RevocationBroadcast;
}

export const listOAuthApplications = (
  deps: Pick<OAuthApplicationDeps, "apps">,
  organizationId: string,
  page: PageRequest,
): Promise<Page<OAuthApplicationRecord>> => deps.apps.list(organizationId, page);

export const getOAuthApplication = async (
  deps: Pick<OAuthApplicationDeps, "apps">,
  organizationId: string,
  id: number,
): Promise<OAuthApplicationRecord> => orNotFound(await deps.apps.get(organizationId, id), "OAuth application");

/**
 * Creates an application. The organization is recorded as its creator (applications made
 * through the API have no user behind them; see docs/decisions.md), and the creating credential's
 * ceiling as the most the application may ever do.
 */
export const createOAuthApplication = async (
  deps: Pick<OAuthApplicationDeps, "apps" | "secrets">,
  ctx: Context,
  org: OrganizationRecord,
  creator: Credential,
  input: CreateOAuthApplicationInput,
): Promise<{ app: OAuthApplicationRecord; secret: string }> => {
  const ceiling = ceilingOf(creator);
  const scopes = checkedScopes(input.scopes, ceiling, creator);
  const redirectUris = checkedRedirectUris(input.redirect_uris) ?? "";
  const secret = deps.secrets.newSecret();
  const name = input.name.trim();
  const app = await deps.apps.insert(
    {
      organization_id: org.id,
      name,
      description: input.description ?? null,
      uid: deps.secrets.newSecret(),
      secret_digest: deps.secrets.digest(secret),
      created_by_id: org.id,
      created_by_type: "Organization",
      created_by_name: org.name,
      data_services_enabled: false,
      ceiling_read_enabled: ceiling.flags.read_enabled,
      ceiling_write_enabled: ceiling.flags.write_enabled,
      ceiling_delete_enabled: ceiling.flags.delete_enabled,
      ceiling_scopes: ceiling.scopes === null ? null : formatScopes(ceiling.scopes),
      scopes,
      redirect_uris: redirectUris,
      created_at: ctx.now,
      updated_at: ctx.now,
      last_used_at: null,
      last_successfully_used_at: null,
    },
    (id) =>
      credentialAudit(ctx, creator, org.id, "oauth_application.created", `oauth_application:${id}`, {
        name,
        scopes: scopes ?? formatScopes(scopesWithinCeiling(ceiling)),
      }),
  );
  return { app, secret };
};

export const updateOAuthApplication = async (
  deps: Pick<OAuthApplicationDeps, "apps">,
  ctx: Context,
  caller: Credential,
  id: number,
  input: UpdateOAuthApplicationInput,
): Promise<OAuthApplicationRecord> => {
  const app = await getOAuthApplication(deps, caller.organizationId, id);
  const scopes = checkedScopes(input.scopes, applicationCeiling(app), caller);
  const redirectUris = checkedRedirectUris(input.redirect_uris);
  const next: OAuthApplicationRecord = {
    ...app,
    scopes: scopes ?? app.scopes,
    redirect_uris: redirectUris ?? app.redirect_uris,
    name: input.name === undefined ? app.name : input.name.trim(),
    description: input.description === undefined ? app.description : input.description,
    updated_at: ctx.now,
  };
  const changed = (["name", "description", "scopes", "redirect_uris"] as const).filter((k) => next[k] !== app[k]);
  await deps.apps.update(
    next,
    credentialAudit(ctx, caller, app.organization_id, "oauth_application.updated", `oauth_application:${app.id}`, {
      changed,
      name: next.name,
    }),
  );
  return next;
};

/** Deleting an application revokes its live access tokens on every API process. */
export const deleteOAuthApplication = async (
  deps: Pick<OAuthApplicationDeps, "apps" | "revocations">,
  ctx: Context,
  caller: Credential | null,
  organizationId: string,
  id: number,
): Promise<void> => {
  const app = await getOAuthApplication(deps, organizationId, id);
  const audit = credentialAudit(ctx, caller, organizationId, "oauth_application.deleted", `oauth_application:${id}`, {
    name: app.name,
  });
  if (!(await deps.apps.remove(organizationId, id, audit))) throw notFound("OAuth application");
  await deps.revocations.applicationRevoked(app.uid);
};
