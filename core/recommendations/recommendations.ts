import { type AuditRecord, auditRecord } from "../audit/mod.ts";
import { normalizeEmail, type ShapeUrls, templateImageUrl } from "../badges/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { type FieldError, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import type { MailBudget, OutboxMail } from "../mail/mod.ts";
import { actorMay, auditByOf, type MemberActor } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type {
  CreateRecommendationsInput,
  RecommendationInput,
  RecommendationListQuery,
  RecommendationRecord,
  RecommendationStore,
  RecommendationTargets,
  RecommendationView,
} from "./records.ts";

export interface RecommendationDeps {
  store: RecommendationStore;
  /** The organization's notification mail budget; each recommendation's mail takes one. */
  mailBudget?: MailBudget;
  /** The pages' addresses: the mail's link goes to the wallet, its picture is the template's image. */
  urls: ShapeUrls;
}

/** Recommending speaks to people for the organization as issuing does. */
const WRITE = "badges.issue";
const READ = "badges.read";

/** The field of item `i` of the request, as the error names it. */
const fieldOf = (batch: boolean, i: number, field: string): string =>
  batch ? `recommendations[${i}].${field}` : field;

/** Each item's address and its problems, before anything is written. */
const resolve = (
  items: readonly RecommendationInput[],
  batch: boolean,
  targets: RecommendationTargets,
): { emails: string[]; errors: FieldError[] } => {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const emails = items.map((item, i) => {
    const field = (name: string) => fieldOf(batch, i, name);
    const template = targets.templates.get(item.badge_template_id.toLowerCase());
    if (!template)
      errors.push({ field: field("badge_template_id"), message: "names no badge template of this organization" });
    else if (template.state !== "active")
      errors.push({ field: field("badge_template_id"), message: "must be an active template (publish it first)" });
    const given = (item.recipient_email === undefined ? 0 : 1) + (item.employee_id === undefined ? 0 : 1);
    if (given !== 1) {
      errors.push({
        field: field("recipient_email"),
        message: "give either recipient_email or employee_id, one of them",
      });
      return "";
    }
    const email =
      item.recipient_email ?? targets.employees.get((item.employee_id as string).toLowerCase())?.email ?? null;
    if (email === null) {
      errors.push({ field: field("employee_id"), message: "names no employee record of this organization" });
      return "";
    }
    const key = `${item.badge_template_id.toLowerCase()} ${normalizeEmail(email)}`;
    const first = seen.get(key);
    if (first !== undefined)
      errors.push({ field: field("recipient_email"), message: `repeats recommendation ${first + 1} of this request` });
    else seen.set(key, i);
    return email.trim();
  });
  return { emails, errors };
};

const mailOf = (
  deps: RecommendationDeps,
  ctx: Context,
  record: RecommendationRecord,
  targets: RecommendationTargets,
): OutboxMail => {
  const template = targets.templates.get(record.badge_template_id);
  return {
    id: ctx.newId(),
    kind: "recommendation",
    organization_id: record.organization_id,
    content: {
      template: "recommendation",
      to: record.recipient_email,
      organization_name: targets.organization_name,
      badge_name: template?.name ?? "",
      badge_description: template?.description ?? "",
      badge_image_url: template ? templateImageUrl(deps.urls, template) : null,
      message: record.message,
      link: `${deps.urls.publicBase}/wallet#recommendations`,
    },
    sent_event: null,
    created_at: ctx.now,
  };
};

/**
 * Recommends templates of the organization to people: one, or a batch written together or not at
 * all. A template must be the organization's and active; a person is an address or one of the
 * organization's employee records; one recommendation per template and person (a dismissed one
 * included: the person said no). Each is mailed once, while the organization's mail budget lasts.
 */
export const createRecommendations = async (
  deps: RecommendationDeps,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: CreateRecommendationsInput,
): Promise<RecommendationView[]> => {
  actorMay(actor, organizationId, WRITE);
  const batch = "recommendations" in input;
  const items = batch ? input.recommendations : [input];
  const targets = await deps.store.targets(
    organizationId,
    [...new Set(items.map((i) => i.badge_template_id.toLowerCase()))],
    [...new Set(items.flatMap((i) => (i.employee_id ? [i.employee_id.toLowerCase()] : [])))],
  );
  const { emails, errors } = resolve(items, batch, targets);
  if (errors.length > 0) throw validationFailed("Invalid recommendation", errors);
  const records: RecommendationRecord[] = [];
  for (const [i, item] of items.entries()) {
    const email = emails[i] as string;
    const mailed = deps.mailBudget ? await deps.mailBudget.take(organizationId) : true;
    records.push({
      id: ctx.newId(),
      organization_id: organizationId,
      badge_template_id: item.badge_template_id.toLowerCase(),
      recipient_email: email,
      recipient_email_key: normalizeEmail(email),
      employee_id: item.employee_id?.toLowerCase() ?? null,
      message: item.message?.trim() || null,
      created_at: ctx.now,
      dismissed_at: null,
      notified_at: mailed ? ctx.now : null,
    });
  }
  const by = auditByOf(actor, clientAddress);
  await deps.store.transaction(async (tx) => {
    const inserted = await tx.insertNew(records);
    const taken = records.flatMap((r, i) =>
      inserted.has(r.id)
        ? []
        : [{ field: fieldOf(batch, i, "recipient_email"), message: "already has a recommendation of this template" }],
    );
    if (taken.length > 0) throw validationFailed("Invalid recommendation", taken);
    await tx.enqueueMails(records.filter((r) => r.notified_at).map((r) => mailOf(deps, ctx, r, targets)));
    await tx.appendAudit(
      records.map((r) =>
        auditRecord(ctx, by, organizationId, "recommendation.created", `recommendation:${r.id}`, {
          badge_template_id: r.badge_template_id,
          recipient_email: r.recipient_email,
          mailed: r.notified_at !== null,
        }),
      ),
    );
  });
  const made = await Promise.all(records.map((r) => deps.store.get(organizationId, r.id)));
  return made.map((m) => orNotFound(m, "Recommendation"));
};

export const listRecommendations = (
  store: RecommendationStore,
  actor: MemberActor,
  organizationId: string,
  query: RecommendationListQuery,
  page: PageRequest,
): Promise<{ items: RecommendationView[]; total: number }> => {
  actorMay(actor, organizationId, READ);
  return store.list(organizationId, query, page);
};

export const getRecommendation = async (
  store: RecommendationStore,
  actor: MemberActor,
  organizationId: string,
  id: string,
): Promise<RecommendationView> => {
  actorMay(actor, organizationId, READ);
  return orNotFound(await store.get(organizationId, id), "Recommendation");
};

/** Withdraws a recommendation: it leaves the person's wallet and the lists. */
export const deleteRecommendation = async (
  store: RecommendationStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
): Promise<void> => {
  actorMay(actor, organizationId, WRITE);
  const audit: AuditRecord = auditRecord(
    ctx,
    auditByOf(actor, clientAddress),
    organizationId,
    "recommendation.deleted",
    `recommendation:${id}`,
    {},
  );
  if (!(await store.delete(organizationId, id, audit))) throw notFound("Recommendation");
};

/** The open recommendations to the account's confirmed addresses: what its wallet shows. */
export const walletRecommendations = (store: RecommendationStore, userId: string): Promise<RecommendationView[]> =>
  store.forAccount(userId);

/** The person says no: it stays dismissed (the organization sees that), and leaves the wallet. */
export const dismissRecommendation = async (
  store: RecommendationStore,
  ctx: Pick<Context, "now">,
  userId: string,
  id: string,
): Promise<void> => {
  if (!(await store.dismiss(userId, id, ctx.now))) throw notFound("Recommendation");
};
