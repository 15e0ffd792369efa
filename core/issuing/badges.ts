import type { AuditRecord } from "../audit/mod.ts";
import {
  applyBadgeAction,
  type BadgeAction,
  type BadgeIssueBody,
  type BadgeListQuery,
  type BadgeRecord,
  type BadgeReplaceBody,
  type BadgeRevokeBody,
  badgeStandardShape,
  checkBatchItems,
  checkIssue,
  checkIssuedAtNotFuture,
  duplicateBadge,
  type NormalizedIssue,
  newBadgeRecord,
  normalizeEmail,
  normalizeIssue,
  type OrganizationRef,
  recipientSubjectId,
  replacementIssue,
  setBadgePrivacy,
  UNKNOWN_TEMPLATE_MESSAGE,
} from "../badges/mod.ts";
import { publicBadgesEventFor, publicBadgesEvents } from "../connect/mod.ts";
import type { Page } from "../credentials/mod.ts";
import { CoreError, forbidden, orNotFound, type Result, settle, validationFailed } from "../errors/mod.ts";
import { type BadgeEventType, badgeEvent, type EventRecord } from "../events/mod.ts";
import { covers } from "../issuer_authorizations/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { followBadgeChange } from "../workforce/mod.ts";
import { mintAcceptToken } from "./accept_tokens.ts";
import { auditOf, eventContext, type IssuingContext, type IssuingDeps } from "./context.ts";
import { pendingBadgeMail } from "./notifications.ts";
import { type CompletionIssuer, completeHeldProgress, keepPathwayProgress } from "./pathway_progress.ts";
import type { BadgeChangeTx, BadgeView, ConnectedHolders, Earner, IssueLookup, IssueWrites } from "./ports.ts";

/** Employers who see the badge's holder's badges follow the change (the rule is workforce's). */
const follow = (
  tx: Pick<ConnectedHolders, "employment">,
  deps: IssuingDeps,
  ctx: IssuingContext,
  before: BadgeView,
  after: BadgeView | null,
) => followBadgeChange(tx.employment, ctx, deps.urls, before, after);

/** A badge just issued, with the account its address belonged to then (for the notification). */
export interface IssuedBadge {
  view: BadgeView;
  earner: Earner | null;
}

/** One item's outcome: a failed item is part of the batch's answer, not a failure of the batch. */
export type BatchResult = { index: number } & Result<IssuedBadge>;

const at = (prefix: string, field: string): string => (prefix === "" ? field : `${prefix}.${field}`);

const unknownTemplate = (prefix: string, templateId: string): CoreError =>
  validationFailed(
    "The badge template does not exist",
    [{ field: at(prefix, "badge_template_id"), message: UNKNOWN_TEMPLATE_MESSAGE }],
    { name: "badge_template_unknown", badge_template_id: templateId },
  );

/**
 * A badge's event in the records of each organization it concerns: the one it belongs to, and the
 * one that issued it on that one's behalf, if one did (both follow it from issue to deletion).
 */
export const badgeEventsOf = (
  kind: BadgeEventType,
  view: BadgeView,
  deps: IssuingDeps,
  ctx: IssuingContext,
): EventRecord[] => {
  const shape = badgeStandardShape(view.badge, view.template, view.issuer, deps.urls, view.authorizedIssuer);
  const { organization_id, issued_by_organization_id } = view.badge;
  return [organization_id, ...(issued_by_organization_id ? [issued_by_organization_id] : [])].map((id) =>
    badgeEvent(kind, shape, eventContext(ctx, id)),
  );
};

const normalized = (input: BadgeIssueBody, now: Date, prefix = ""): NormalizedIssue => {
  const n = normalizeIssue(input, prefix);
  checkIssuedAtNotFuture(n, now, prefix);
  return n;
};

/**
 * Takes one notification from the organization's mail budget (none taken when the issuer
 * suppresses the mail). Called before any transaction: the budget is a store of its own, and on a
 * one-connection database a second connection would wait for the transaction forever.
 */
const takeMailBudget = async (deps: IssuingDeps, organizationId: string, n: NormalizedIssue): Promise<boolean> =>
  n.suppress_badge_notification_email || !deps.mailBudget ? true : deps.mailBudget.take(organizationId);

/**
 * `takeMailBudget` begun, to be awaited by `issueWith` after its lookup, which runs meanwhile:
 * neither needs the other. Outside a transaction only (see above). Settled here too, so a take
 * that fails while the lookup refused first is not left unhandled.
 */
const mailBudgetTaking = (deps: IssuingDeps, organizationId: string, n: NormalizedIssue): Promise<boolean> => {
  const taking = takeMailBudget(deps, organizationId, n);
  taking.catch(() => {});
  return taking;
};

/** What `issueWith` takes beside the request: a replacement's ids, a batch's prefix, the mail budget's answer. */
interface IssueExtra {
  id?: string;
  replaces_badge_id?: string;
  prefix?: string;
  mailAllowed?: boolean | Promise<boolean>;
}

/**
 * Issues one normalized request: checks the template and duplicates, then writes the badge with
 * its `badge.created` event in one atomic write (`writer` is the store, or a transaction). A
 * template of another organization is issued on that organization's behalf when an accepted
 * authorization covers it (`covers`): checked and written in one transaction holding the
 * authorization against being ended meanwhile, so an ended one stops the very next issue.
 */
const issueWith = async (
  writer: IssueWrites,
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  n: NormalizedIssue,
  extra: IssueExtra = {},
): Promise<IssuedBadge> => {
  const prefix = extra.prefix ?? "";
  const key = normalizeEmail(n.recipient_email);
  const look = await writer.issueLookup(organizationId, n.badge_template_id, key);
  if (look.template && look.issuer) return writeIssue(writer, deps, ctx, organizationId, n, key, look, extra);
  // The mail budget is a store of its own: settled before the transaction, which on a
  // one-connection database it would otherwise wait for while the transaction waits for it.
  const mailAllowed = await extra.mailAllowed;
  return writer.inTransaction(async (tx) => {
    const { grants, issuer } = await tx.grantsFor(organizationId, n.badge_template_id);
    const grant = grants.find((g) => covers(g, n.badge_template_id));
    if (!grant || !issuer) throw unknownTemplate(prefix, n.badge_template_id);
    const owned = await tx.issueLookup(grant.grantor_id, n.badge_template_id, key);
    return writeIssue(tx, deps, ctx, grant.grantor_id, n, key, owned, { ...extra, mailAllowed }, issuer);
  });
};

/** The write of `issueWith`, for the template's owner `ownerId`, issued by `authorizedIssuer` when another organization issues it. */
const writeIssue = async (
  writer: IssueWrites,
  deps: IssuingDeps,
  ctx: IssuingContext,
  ownerId: string,
  n: NormalizedIssue,
  key: string,
  look: IssueLookup,
  extra: IssueExtra,
  authorizedIssuer?: OrganizationRef,
): Promise<IssuedBadge> => {
  const prefix = extra.prefix ?? "";
  if (!look.template || !look.issuer) throw unknownTemplate(prefix, n.badge_template_id);
  checkIssue(look.template, look.hasLiveBadge, prefix);
  // Over the organization's mail budget the badge is still issued, without its notification.
  const notify = (await extra.mailAllowed) !== false && !n.suppress_badge_notification_email;
  const acceptToken = notify ? mintAcceptToken(deps.acceptTokens, ctx.now) : null;
  const badge = newBadgeRecord(n, {
    id: extra.id ?? ctx.newId(),
    organization_id: ownerId,
    issued_by_organization_id: authorizedIssuer?.id ?? null,
    now: ctx.now,
    recipient_salt: ctx.newSalt(),
    user_id: look.earner?.user_id ?? null,
    subject_id: recipientSubjectId(look.subjects),
    replaces_badge_id: extra.replaces_badge_id ?? null,
    accept_token_digest: acceptToken === null ? null : deps.acceptTokens.digest(acceptToken),
  });
  const view: BadgeView = {
    badge,
    template: look.template,
    issuer: look.issuer,
    ...(authorizedIssuer ? { authorizedIssuer } : {}),
  };
  const events = badgeEventsOf("badge.created", view, deps, ctx);
  const mail = acceptToken === null ? null : pendingBadgeMail(deps, ctx, { view, earner: look.earner, acceptToken });
  const inserted = await writer.insertBadge(
    badge,
    key,
    !look.template.allow_duplicate_badges,
    events,
    mail ? [mail] : [],
  );
  if (inserted === "duplicate") {
    throw duplicateBadge(look.template.id, at(prefix, "recipient_email"));
  }
  // Deleted by another request since the lookup (a template with badges cannot be deleted).
  if (inserted === "template_gone") throw unknownTemplate(prefix, n.badge_template_id);
  return { view, earner: look.earner };
};

/**
 * Issues one badge. `audit`: the issue is also an entry of the audit log (the console's issue
 * form), written in the badge's transaction; the API's issues are told by their `badge.created`
 * events alone, and stay one statement each.
 */
export const issueBadge = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  body: BadgeIssueBody,
  options: { audit?: boolean } = {},
): Promise<IssuedBadge> => {
  const n = normalized(body, ctx.now);
  if (!options.audit || !ctx.by) {
    return issueWith(deps.store, deps, ctx, organizationId, n, {
      mailAllowed: mailBudgetTaking(deps, organizationId, n),
    });
  }
  const mailAllowed = await takeMailBudget(deps, organizationId, n);
  return deps.store.transaction(async (tx) => {
    const issued = await issueWith(tx, deps, ctx, organizationId, n, { mailAllowed });
    const { badge } = issued.view;
    await tx.appendAudit(
      auditOf(ctx, organizationId, "badge.issued", `badge:${badge.id}`, {
        badge_template_id: badge.badge_template_id,
        recipient_email: badge.recipient_email,
      }),
    );
    return issued;
  });
};

/** Why a notification cannot be sent again: only a pending badge waits for its recipient. */
const NOT_PENDING = "Only a pending badge's notification can be sent again";

/**
 * Sends a pending badge's notification again, with a fresh link: the earlier link stops showing
 * the recipient (its token is replaced). Refused when the badge is not pending, or when the
 * organization's notification budget is spent (the mail would not go).
 */
export const resendNotification = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
): Promise<BadgeView> => {
  const current = await getBadge(deps, organizationId, id);
  if (current.badge.state !== "pending") {
    throw validationFailed(NOT_PENDING, [{ field: "state", message: `is ${current.badge.state}` }]);
  }
  if (deps.mailBudget && !(await deps.mailBudget.take(organizationId))) {
    throw new CoreError("rate_limited", "This organization's notification budget is spent for now; try again later");
  }
  return deps.store.transaction(async (tx) => {
    const view = orNotFound(await tx.lockBadge(organizationId, id), "Badge");
    if (view.badge.state !== "pending") {
      throw validationFailed(NOT_PENDING, [{ field: "state", message: `is ${view.badge.state}` }]);
    }
    const look = await tx.issueLookup(
      organizationId,
      view.badge.badge_template_id,
      normalizeEmail(view.badge.recipient_email),
    );
    const acceptToken = mintAcceptToken(deps.acceptTokens, ctx.now);
    // The notification goes even when the issuer suppressed it at issue: resending is asking for it.
    const mail = pendingBadgeMail(deps, ctx, {
      view: { ...view, badge: { ...view.badge, suppress_badge_notification_email: false } },
      earner: look.earner,
      acceptToken,
    });
    await tx.setAcceptToken(view.badge.id, deps.acceptTokens.digest(acceptToken));
    if (mail) await tx.enqueueMails([mail]);
    await tx.appendAudit(
      auditOf(ctx, organizationId, "badge.notification_resent", `badge:${view.badge.id}`, {
        recipient_email: view.badge.recipient_email,
      }),
    );
    return view;
  });
};

/**
 * Each item is checked and issued on its own (its own atomic write), so one bad item is reported
 * at its index and does not stop the others. Failures other than the request's own (the database
 * going away) abort the batch.
 */
export const issueBatch = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  items: readonly unknown[],
): Promise<BatchResult[]> => {
  const results: BatchResult[] = [];
  for (const check of checkBatchItems(items)) {
    if (!check.ok) {
      results.push(check);
      continue;
    }
    const prefix = `badges.${check.index}`;
    const issued = await settle(async () => {
      checkIssuedAtNotFuture(check.value, ctx.now, prefix);
      const mailAllowed = mailBudgetTaking(deps, organizationId, check.value);
      return issueWith(deps.store, deps, ctx, organizationId, check.value, { prefix, mailAllowed });
    });
    results.push({ index: check.index, ...issued });
  }
  return results;
};

/** Whether the organization's mail budget lets this request's notification go (taking one). */
export const mailAllowedFor = takeMailBudget;

/**
 * Issues requests already checked (`checkBatchItems`) through `writer` all at once, so a writer
 * that groups calls (one transaction of an import's rows) shares its lookups and writes among
 * them. Each gets its own answer; field paths have no prefix. `mailAllowed` comes from
 * `mailAllowedFor`, taken before the writer's transaction.
 */
export const issueChecked = (
  writer: IssueWrites,
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  items: ReadonlyArray<{ value: NormalizedIssue; mailAllowed: boolean }>,
): Promise<Array<Result<IssuedBadge>>> =>
  Promise.all(
    items.map((item) =>
      settle(async () => {
        checkIssuedAtNotFuture(item.value, ctx.now);
        return issueWith(writer, deps, ctx, organizationId, item.value, { mailAllowed: item.mailAllowed });
      }),
    ),
  );

/** A page of the organization's badges; `query` comes from `parseListQuery(BADGE_LIST, ...)`. */
export const listBadges = (
  deps: IssuingDeps,
  organizationId: string,
  query: BadgeListQuery,
  page: PageRequest,
): Promise<Page<BadgeView>> => deps.store.listBadges(organizationId, query, page);

export const getBadge = async (deps: IssuingDeps, organizationId: string, id: string): Promise<BadgeView> =>
  orNotFound(await deps.store.getBadge(organizationId, id), "Badge");

/** The earner acting, when the caller names one: the badge must be linked to that account. */
const checkEarner = (badge: BadgeRecord, userId: string | undefined): void => {
  if (userId !== undefined && badge.user_id !== userId) throw forbidden("This badge was not issued to this user");
};

/** Locks the badge, applies `change`, writes it with the events it returns (none: nothing to write). */
/** `user.public_badges.*` for the organizations the earner connected, when the badge's visibility to them changes. */
const connectedEvents = async (
  tx: Pick<ConnectedHolders, "connectedOrganizations">,
  deps: IssuingDeps,
  ctx: IssuingContext,
  before: BadgeView,
  after: BadgeView | null,
): Promise<EventRecord[]> => {
  const kind = publicBadgesEventFor(before.badge, after?.badge ?? null, after !== null);
  const userId = after?.badge.user_id ?? before.badge.user_id;
  if (!kind || !userId) return [];
  const organizations = await tx.connectedOrganizations([userId]);
  const view = after ?? before;
  const shape = badgeStandardShape(view.badge, view.template, view.issuer, deps.urls, view.authorizedIssuer);
  return publicBadgesEvents(kind, userId, shape, organizations, ctx);
};

/**
 * The pathways' progress of the badge's recipient follows the change (`keepPathwayProgress`); a
 * pathway it completes gets its completion badge through `issueWith` in the same transaction. That
 * mail is not taken from the organization's budget (a store of its own, not to be waited for inside
 * a transaction): one per earner and pathway.
 */
const completionIssuer =
  (deps: IssuingDeps, ctx: IssuingContext): CompletionIssuer =>
  async (writer, organizationId, body) => {
    const issued = await issueWith(writer, deps, ctx, organizationId, normalized(body, ctx.now), { mailAllowed: true });
    return issued.view.badge.id;
  };

const keepProgress = (
  tx: BadgeChangeTx,
  deps: IssuingDeps,
  ctx: IssuingContext,
  before: BadgeRecord,
  after: BadgeRecord | null,
): Promise<void> => keepPathwayProgress(tx, deps, ctx, before, after, completionIssuer(deps, ctx));

/**
 * A pathway just published (or at its new version): the earners who hold every milestone already
 * are completed, each with its completion badge, once (their progress rows locked, a completion
 * recorded only where none is). Answers how many were completed.
 */
export const completePathwayEarners = (deps: IssuingDeps, ctx: IssuingContext, pathwayId: string): Promise<number> =>
  deps.store.transaction((tx) => completeHeldProgress(tx, deps, ctx, pathwayId, completionIssuer(deps, ctx)));

const changeBadge = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string | null,
  id: string,
  change: (
    view: BadgeView,
  ) => { badge: BadgeRecord; events: (next: BadgeView) => EventRecord[]; audit?: AuditRecord[] } | null,
): Promise<BadgeView> =>
  deps.store.transaction(async (tx: BadgeChangeTx) => {
    const view = orNotFound(await tx.lockBadge(organizationId, id), "Badge");
    const result = change(view);
    if (result === null) return view;
    const next: BadgeView = { ...view, badge: result.badge };
    await tx.updateBadge(result.badge);
    await tx.appendEvents([...result.events(next), ...(await connectedEvents(tx, deps, ctx, view, next))]);
    if (result.audit) await tx.appendAudit(result.audit);
    await follow(tx, deps, ctx, view, next);
    await keepProgress(tx, deps, ctx, view.badge, result.badge);
    return next;
  });

const transition = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string | null,
  id: string,
  action: BadgeAction,
  userId?: string,
): Promise<BadgeView> =>
  changeBadge(deps, ctx, organizationId, id, (view) => {
    checkEarner(view.badge, userId);
    const badge = applyBadgeAction(view.badge, action, ctx.now);
    const audit =
      action.type === "revoke"
        ? auditOf(ctx, view.badge.organization_id, "badge.revoked", `badge:${view.badge.id}`, {
            reason: action.reason,
            recipient_email: view.badge.recipient_email,
          })
        : [];
    return { badge, events: (next) => badgeEventsOf("badge.state.changed", next, deps, ctx), audit };
  });

export const revokeBadge = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
  body: BadgeRevokeBody,
): Promise<BadgeView> => transition(deps, ctx, organizationId, id, { type: "revoke", reason: body.reason });

/** The recipient accepts or rejects a pending badge (the user interface side). */
export const earnerDecision = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  badgeId: string,
  decision: "accept" | "reject",
  userId?: string,
): Promise<BadgeView> => transition(deps, ctx, null, badgeId, { type: decision }, userId);

/** The earner's privacy choice; `badge.privacy.changed` only when it actually changes. */
export const setPrivacy = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  badgeId: string,
  isPublic: boolean,
  userId?: string,
): Promise<BadgeView> =>
  changeBadge(deps, ctx, null, badgeId, (view) => {
    checkEarner(view.badge, userId);
    if (view.badge.public === isPublic) return null;
    return {
      badge: setBadgePrivacy(view.badge, isPublic, ctx.now),
      events: (next) => badgeEventsOf("badge.privacy.changed", next, deps, ctx),
    };
  });

/**
 * A new badge replaces a pending or accepted one, in one transaction: the old one becomes
 * `replaced` and points at the new one, which points back (`replaces_badge_id`). The template
 * and recipient default to the old badge's.
 */
export const replaceBadge = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
  body: BadgeReplaceBody,
): Promise<{ replaced: BadgeView; issued: IssuedBadge }> => {
  const mailAllowed =
    body.suppress_badge_notification_email || !deps.mailBudget ? true : await deps.mailBudget.take(organizationId);
  return deps.store.transaction(async (tx: BadgeChangeTx) => {
    const old = orNotFound(await tx.lockBadge(organizationId, id), "Badge");
    const n = normalized(replacementIssue(old.badge, body), ctx.now);
    const newId = ctx.newId();
    const oldNext = applyBadgeAction(old.badge, { type: "replace" }, ctx.now, newId);
    // The old badge stops being live first, so the duplicate rule does not count it.
    await tx.updateBadge(oldNext);
    const replaced: BadgeView = { ...old, badge: oldNext };
    await tx.appendEvents([
      ...badgeEventsOf("badge.state.changed", replaced, deps, ctx),
      ...(await connectedEvents(tx, deps, ctx, old, replaced)),
    ]);
    await follow(tx, deps, ctx, old, replaced);
    await keepProgress(tx, deps, ctx, old.badge, oldNext);
    const issued = await issueWith(tx, deps, ctx, organizationId, n, {
      id: newId,
      replaces_badge_id: old.badge.id,
      mailAllowed,
    });
    await tx.appendAudit(
      auditOf(ctx, organizationId, "badge.replaced", `badge:${old.badge.id}`, {
        replacement_id: newId,
        recipient_email: old.badge.recipient_email,
      }),
    );
    return { replaced, issued };
  });
};

export const deleteBadge = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
): Promise<void> =>
  deps.store.transaction(async (tx: BadgeChangeTx) => {
    const view = orNotFound(await tx.lockBadge(organizationId, id), "Badge");
    await tx.deleteBadge(id);
    await tx.appendEvents([
      ...badgeEventsOf("badge.deleted", view, deps, ctx),
      ...(await connectedEvents(tx, deps, ctx, view, null)),
    ]);
    await tx.appendAudit(
      auditOf(ctx, organizationId, "badge.deleted", `badge:${id}`, { recipient_email: view.badge.recipient_email }),
    );
    await follow(tx, deps, ctx, view, null);
    await keepProgress(tx, deps, ctx, view.badge, null);
  });
