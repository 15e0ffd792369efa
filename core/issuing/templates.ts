import {
  applyTemplateAction,
  applyTemplateUpdate,
  type BadgeRecord,
  type BadgeTemplateRecord,
  badgeStandardShape,
  badgeTemplateJson,
  checkTemplateDeletable,
  checkTemplateImages,
  newTemplateRecord,
  type OrganizationRef,
  type TemplateAction,
  type TemplateCreateBody,
  type TemplateImageChange,
  type TemplateListQuery,
  type TemplateUpdateBody,
  templateChanged,
} from "../badges/mod.ts";
import { templateChangeEvents } from "../connect/mod.ts";
import type { Page } from "../credentials/mod.ts";
import { type CoreError, orNotFound, validationFailed } from "../errors/mod.ts";
import { type BadgeTemplateEventType, badgeTemplateEvent, type EventRecord } from "../events/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { auditOf, eventContext, type IssuingContext, type IssuingDeps } from "./context.ts";
import type { TemplateChangeTx, TemplateView } from "./ports.ts";

const slugTaken = (): CoreError =>
  validationFailed("Validation failed", [
    { field: "vanity_slug", message: "is already used by another badge template of this organization" },
  ]);

const checkName = (name: string | undefined): void => {
  if (name !== undefined && name.trim() === "") {
    throw validationFailed("Validation failed", [{ field: "name", message: "must not be blank" }]);
  }
};

const templateEvent = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  kind: BadgeTemplateEventType,
  template: BadgeTemplateRecord,
  owner: OrganizationRef,
): EventRecord =>
  badgeTemplateEvent(kind, badgeTemplateJson(template, owner, deps.urls), eventContext(ctx, template.organization_id));

export const createTemplate = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  owner: OrganizationRef,
  body: TemplateCreateBody,
  image: string | null = null,
): Promise<TemplateView> => {
  checkName(body.name);
  checkTemplateImages(image, body.image_url);
  const template = newTemplateRecord(body, { id: ctx.newId(), organization_id: owner.id, now: ctx.now, image });
  await deps.store.transaction(async (tx: TemplateChangeTx) => {
    if ((await tx.insertTemplate(template)) === "slug_taken") throw slugTaken();
    await tx.appendEvents([templateEvent(deps, ctx, "badge_template.created", template, owner)]);
    await tx.appendAudit(
      auditOf(ctx, owner.id, "badge_template.created", `badge_template:${template.id}`, { name: template.name }),
    );
  });
  return { template, owner };
};

/** A page of the organization's templates; `query` comes from `parseListQuery(TEMPLATE_LIST, ...)`. */
export const listTemplates = (
  deps: IssuingDeps,
  organizationId: string,
  query: TemplateListQuery,
  page: PageRequest,
): Promise<Page<TemplateView>> => deps.store.listTemplates(organizationId, query, page);

export const getTemplate = async (deps: IssuingDeps, organizationId: string, id: string): Promise<TemplateView> =>
  orNotFound(await deps.store.getTemplate(organizationId, id), "Badge template");

/** Locks the template, applies `change`, and records `badge_template.changed` when something changed. */
const changeTemplate = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
  action: "badge_template.updated" | "badge_template.archived" | "badge_template.unarchived",
  change: (current: BadgeTemplateRecord) => BadgeTemplateRecord,
): Promise<TemplateView> =>
  deps.store.transaction(async (tx: TemplateChangeTx) => {
    const view = orNotFound(await tx.lockTemplate(organizationId, id), "Badge template");
    const next = change(view.template);
    if (!templateChanged(view.template, next)) return view;
    if ((await tx.updateTemplate(next)) === "slug_taken") throw slugTaken();
    const shape = (badge: BadgeRecord, template: BadgeTemplateRecord, authorizedIssuer?: OrganizationRef) =>
      badgeStandardShape(badge, template, view.owner, deps.urls, authorizedIssuer);
    const retemplated = (await tx.connectedHolders(id)).map(({ badge, organizations, authorizedIssuer }) => ({
      visibility: badge,
      before: shape(badge, view.template, authorizedIssuer),
      after: shape(badge, next, authorizedIssuer),
      organizations,
    }));
    await tx.appendEvents([
      templateEvent(deps, ctx, "badge_template.changed", next, view.owner),
      ...templateChangeEvents(retemplated, ctx),
    ]);
    await tx.appendAudit(auditOf(ctx, organizationId, action, `badge_template:${id}`, { name: next.name }));
    return { template: next, owner: view.owner };
  });

export const updateTemplate = async (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
  body: TemplateUpdateBody,
  image: TemplateImageChange = undefined,
): Promise<TemplateView> => {
  checkName(body.name);
  return changeTemplate(deps, ctx, organizationId, id, "badge_template.updated", (t) =>
    applyTemplateUpdate(t, body, ctx.now, image),
  );
};

export const templateAction = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
  action: Extract<TemplateAction, "archive" | "unarchive">,
): Promise<TemplateView> =>
  changeTemplate(deps, ctx, organizationId, id, `badge_template.${action}d`, (t) =>
    applyTemplateAction(t, action, ctx.now),
  );

export const deleteTemplate = (
  deps: IssuingDeps,
  ctx: IssuingContext,
  organizationId: string,
  id: string,
): Promise<void> =>
  deps.store.transaction(async (tx: TemplateChangeTx) => {
    const view = orNotFound(await tx.lockTemplate(organizationId, id), "Badge template");
    checkTemplateDeletable(view.template);
    await tx.deleteTemplate(id);
    await tx.appendEvents([templateEvent(deps, ctx, "badge_template.deleted", view.template, view.owner)]);
    await tx.appendAudit(
      auditOf(ctx, organizationId, "badge_template.deleted", `badge_template:${id}`, { name: view.template.name }),
    );
  });
