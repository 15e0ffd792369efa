import { auditRecord } from "../audit/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { actorMay, auditByOf, type MemberActor } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type {
  AuthorizationSide,
  GrantIssuerInput,
  IssuerAuthorizationRecord,
  IssuerAuthorizationStore,
  IssuerAuthorizationView,
} from "./records.ts";
import { type AuthorizationAction, mayGrant, sideOf, transition } from "./rules.ts";

/**
 * Granting, accepting and ending an authorization change which templates issue where, so they take
 * `templates.write` (owners and admins) on either side; reading them `templates.read` (grantor) and
 * `badges.read` (issuer, whose issue form lists what it may issue).
 */
const WRITE = "templates.write";
const READ = { grantor: "templates.read", issuer: "badges.read" } as const;

/** `grantorId` authorizes another organization to issue its templates (all, or those named); it waits for the issuer. */
export const grantIssuer = async (
  store: IssuerAuthorizationStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  grantorId: string,
  input: GrantIssuerInput,
): Promise<IssuerAuthorizationView> => {
  actorMay(actor, grantorId, WRITE);
  const issuerId = input.issuer_organization_id.toLowerCase();
  mayGrant(grantorId, issuerId);
  if (!(await store.organizationExists(issuerId)))
    throw validationFailed("Invalid authorization", [
      { field: "issuer_organization_id", message: "names no organization" },
    ]);
  const templateIds = input.badge_template_ids?.map((id) => id.toLowerCase()) ?? null;
  if (templateIds !== null) {
    const foreign = await store.foreignTemplates(grantorId, templateIds);
    if (foreign.length > 0)
      throw validationFailed(
        "Invalid authorization",
        templateIds.flatMap((id, i) =>
          foreign.includes(id)
            ? [{ field: `badge_template_ids.${i}`, message: "no badge template of this organization has this id" }]
            : [],
        ),
      );
  }
  const record: IssuerAuthorizationRecord = {
    id: ctx.newId(),
    grantor_id: grantorId,
    issuer_id: issuerId,
    state: "pending",
    all_templates: templateIds === null,
    badge_template_ids: templateIds ?? [],
    created_at: ctx.now,
    updated_at: ctx.now,
    accepted_at: null,
    ended_at: null,
    ended_by: null,
  };
  await store.transaction(async (tx) => {
    if (!(await tx.insertIfNoneLive(record)))
      throw validationFailed(
        "This organization already authorizes that issuer (pending or accepted); end that authorization first",
        [{ field: "issuer_organization_id", message: "already authorized" }],
      );
    await tx.appendAudit([
      auditRecord(
        ctx,
        auditByOf(actor, clientAddress),
        grantorId,
        "issuer_authorization.granted",
        `issuer_authorization:${record.id}`,
        {
          issuer_organization_id: issuerId,
          all_badge_templates: record.all_templates,
          badge_template_ids: record.badge_template_ids,
        },
      ),
    ]);
  });
  return orNotFound(await store.get(record.id), "Issuer authorization");
};

const AUDIT = { accept: "issuer_authorization.accepted", end: "issuer_authorization.ended" } as const;

/**
 * Accepts (the issuer) or ends (either side) an authorization as `organizationId`, which came by
 * the path of `side`; `transition` decides who may. The audit row goes to the acting organization.
 */
export const changeIssuerAuthorization = async (
  store: IssuerAuthorizationStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  side: AuthorizationSide,
  id: string,
  action: AuthorizationAction,
): Promise<IssuerAuthorizationView> => {
  actorMay(actor, organizationId, WRITE);
  await store.transaction(async (tx) => {
    const current = orNotFound(await tx.lock(id), "Issuer authorization");
    const state = transition(current, organizationId, side, action);
    await tx.update({
      ...current,
      state,
      updated_at: ctx.now,
      ...(state === "accepted" ? { accepted_at: ctx.now } : {}),
      ...(state === "ended" ? { ended_at: ctx.now, ended_by: side } : {}),
    });
    await tx.appendAudit([
      auditRecord(ctx, auditByOf(actor, clientAddress), organizationId, AUDIT[action], `issuer_authorization:${id}`, {
        grantor_organization_id: current.grantor_id,
        issuer_organization_id: current.issuer_id,
        from: current.state,
        to: state,
      }),
    ]);
  });
  return orNotFound(await store.get(id), "Issuer authorization");
};

/** The authorizations `organizationId` granted (`grantor`) or received (`issuer`), newest first. */
export const listIssuerAuthorizations = (
  store: IssuerAuthorizationStore,
  actor: MemberActor,
  organizationId: string,
  side: AuthorizationSide,
  page: PageRequest,
  options: { liveOnly?: boolean } = {},
): Promise<{ items: IssuerAuthorizationView[]; total: number }> => {
  actorMay(actor, organizationId, READ[side]);
  return store.list(organizationId, side, page, options);
};

/** One authorization, seen by its side through that side's path. */
export const getIssuerAuthorization = async (
  store: IssuerAuthorizationStore,
  actor: MemberActor,
  organizationId: string,
  side: AuthorizationSide,
  id: string,
): Promise<IssuerAuthorizationView> => {
  actorMay(actor, organizationId, READ[side]);
  const found = await store.get(id);
  if (!found || sideOf(found, organizationId) !== side) throw notFound("Issuer authorization");
  return found;
};
