import { type AuditAction, auditRecord } from "../audit/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { type FieldError, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { covers } from "../issuer_authorizations/mod.ts";
import { actorMay, auditByOf, type MemberActor } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { milestoneTemplateIds } from "./progress.ts";
import type {
  CreatePathwayInput,
  EarnerListQuery,
  Milestone,
  MilestoneInput,
  PathwayListQuery,
  PathwayProgressRecord,
  PathwayRecord,
  PathwayState,
  PathwayStore,
  PathwayTemplateFacts,
  PathwayTx,
  UpdatePathwayInput,
} from "./records.ts";

/** Pathways are the organization's templates put in order: templates' permissions govern them. */
const WRITE = "templates.write";
const READ = "templates.read";

/** The milestones as stored: ids lower-case, `required` defaulting to all. */
export const normalizeMilestones = (input: readonly MilestoneInput[]): Milestone[] =>
  input.map((m) => ({
    name: m.name.trim(),
    badge_template_ids: m.badge_template_ids.map((id) => id.toLowerCase()),
    required: m.required ?? m.badge_template_ids.length,
  }));

/**
 * The field errors of a pathway's milestones and completion template, named as the request names
 * them (`milestones[1].required`, `milestones[0].badge_template_ids[2]`). Milestone templates must
 * be the organization's or covered by an accepted authorization from their owner (`facts.grants`),
 * in any state but draft; the completion template must be the organization's own and active (it
 * issues it), and no milestone's (earning it would count toward itself).
 */
export const pathwayErrors = (
  organizationId: string,
  name: string,
  milestones: readonly Milestone[],
  completionTemplateId: string,
  facts: PathwayTemplateFacts,
): FieldError[] => {
  const errors: FieldError[] = [];
  const nameable = (id: string) => {
    const t = facts.templates.get(id);
    if (!t) return undefined;
    const own = t.organization_id === organizationId;
    return own || facts.grants.some((g) => g.grantor_id === t.organization_id && covers(g, id)) ? t : undefined;
  };
  if (name.trim() === "") errors.push({ field: "name", message: "must not be blank" });
  milestones.forEach((m, i) => {
    const field = (f: string) => `milestones[${i}].${f}`;
    if (m.name === "") errors.push({ field: field("name"), message: "must not be blank" });
    const seen = new Set<string>();
    m.badge_template_ids.forEach((id, j) => {
      const at = field(`badge_template_ids[${j}]`);
      const state = nameable(id)?.state;
      if (seen.has(id)) errors.push({ field: at, message: "names a template twice in one milestone" });
      else if (state === undefined)
        errors.push({
          field: at,
          message: "names no badge template of this organization or of an organization it is authorized to issue for",
        });
      else if (state === "draft") errors.push({ field: at, message: "is a draft template (publish it first)" });
      else if (id === completionTemplateId)
        errors.push({ field: at, message: "is the pathway's completion template, which cannot be a milestone" });
      seen.add(id);
    });
    if (m.required < 1 || m.required > m.badge_template_ids.length)
      errors.push({
        field: field("required"),
        message: `must be between 1 and the milestone's ${m.badge_template_ids.length} templates`,
      });
  });
  const completion = facts.templates.get(completionTemplateId);
  if (completion === undefined || completion.organization_id !== organizationId)
    errors.push({ field: "completion_badge_template_id", message: "names no badge template of this organization" });
  else if (completion.state !== "active")
    errors.push({ field: "completion_badge_template_id", message: "must be an active template (publish it first)" });
  return errors;
};

/** What may happen to a pathway in each state; anything else is a 422 naming the state. */
const TRANSITIONS: Record<"publish" | "archive" | "delete" | "update", readonly PathwayState[]> = {
  publish: ["draft"],
  archive: ["draft", "published"],
  delete: ["draft"],
  update: ["draft", "published"],
};

export const checkTransition = (state: PathwayState, action: keyof typeof TRANSITIONS): void => {
  if (!TRANSITIONS[action].includes(state))
    throw validationFailed(
      action === "delete"
        ? `A ${state} pathway cannot be deleted (archive it instead)`
        : `A ${state} pathway cannot be ${action === "update" ? "changed" : `${action}ed`}`,
      [{ field: "state", message: `is ${state}` }],
    );
};

/**
 * Whether two lists of milestones are the same goal: names, counts and templates (a set: their
 * order is not a change), whatever order the keys of a stored record came back in.
 */
const sameMilestones = (a: readonly Milestone[], b: readonly Milestone[]): boolean => {
  const key = (m: Milestone) => JSON.stringify([m.name, m.required, [...m.badge_template_ids].sort()]);
  return a.length === b.length && a.every((m, i) => b[i] !== undefined && key(m) === key(b[i]));
};

/**
 * The pathway after `input`: a draft changes in place; a published one keeps its name and
 * description changes in place, and takes new milestones or a new completion template as its next
 * version (`version` + 1). Pure; the caller checks the result's templates.
 */
export const updatedPathway = (current: PathwayRecord, input: UpdatePathwayInput, now: Date): PathwayRecord => {
  checkTransition(current.state, "update");
  const milestones = input.milestones ? normalizeMilestones(input.milestones) : current.milestones;
  const completion = input.completion_badge_template_id?.toLowerCase() ?? current.completion_badge_template_id;
  const changed =
    !sameMilestones(milestones, current.milestones) || completion !== current.completion_badge_template_id;
  return {
    ...current,
    name: input.name?.trim() ?? current.name,
    description: input.description?.trim() ?? current.description,
    milestones,
    completion_badge_template_id: completion,
    recommend_next: input.recommend_next ?? current.recommend_next,
    version: current.state === "published" && changed ? current.version + 1 : current.version,
    updated_at: now,
  };
};

export const newPathway = (ctx: Context, organizationId: string, input: CreatePathwayInput): PathwayRecord => ({
  id: ctx.newId(),
  organization_id: organizationId,
  name: input.name.trim(),
  description: input.description?.trim() ?? "",
  state: "draft",
  version: 1,
  completion_badge_template_id: input.completion_badge_template_id.toLowerCase(),
  milestones: normalizeMilestones(input.milestones),
  recommend_next: input.recommend_next ?? false,
  created_at: ctx.now,
  updated_at: ctx.now,
  published_at: null,
});

const checkTemplates = async (store: PathwayStore, record: PathwayRecord): Promise<void> => {
  const ids = [...milestoneTemplateIds(record.milestones), record.completion_badge_template_id];
  const facts = await store.templates(record.organization_id, [...new Set(ids)]);
  const errors = pathwayErrors(
    record.organization_id,
    record.name,
    record.milestones,
    record.completion_badge_template_id,
    facts,
  );
  if (errors.length > 0) throw validationFailed("Invalid pathway", errors);
};

/**
 * Brings the earners' progress up to the pathway's templates (the badges accepted now), once, at
 * publication and at each new version; from then on it is kept as badges change.
 */
const seedProgress = async (tx: PathwayTx, record: PathwayRecord, now: Date): Promise<void> => {
  await tx.seedProgress(record.id, record.organization_id, milestoneTemplateIds(record.milestones), now);
};

/**
 * After a publication or a new version has committed: completes the earners who hold every
 * milestone already (issuing's `completePathwayEarners`, given by the caller), as an acceptance would.
 */
export type CompleteHeld = (pathway: PathwayRecord) => Promise<unknown>;

const audit = (ctx: Context, actor: MemberActor, clientAddress: string | null, action: AuditAction, p: PathwayRecord) =>
  auditRecord(ctx, auditByOf(actor, clientAddress), p.organization_id, action, `pathway:${p.id}`, {
    name: p.name,
    version: p.version,
  });

export const createPathway = async (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: CreatePathwayInput,
): Promise<PathwayRecord> => {
  actorMay(actor, organizationId, WRITE);
  const record = newPathway(ctx, organizationId, input);
  await checkTemplates(store, record);
  await store.transaction(async (tx) => {
    await tx.insert(record);
    await tx.appendAudit([audit(ctx, actor, clientAddress, "pathway.created", record)]);
  });
  return record;
};

export const listPathways = (
  store: PathwayStore,
  actor: MemberActor,
  organizationId: string,
  query: PathwayListQuery,
  page: PageRequest,
): Promise<{ items: PathwayRecord[]; total: number }> => {
  actorMay(actor, organizationId, READ);
  return store.list(organizationId, query, page);
};

export const getPathway = async (
  store: PathwayStore,
  actor: MemberActor,
  organizationId: string,
  id: string,
): Promise<PathwayRecord> => {
  actorMay(actor, organizationId, READ);
  return orNotFound(await store.get(organizationId, id), "Pathway");
};

/** One locked change of a pathway, audited. */
const change = async (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
  action: AuditAction,
  work: (tx: PathwayTx, current: PathwayRecord) => Promise<PathwayRecord>,
): Promise<PathwayRecord> => {
  actorMay(actor, organizationId, WRITE);
  return store.transaction(async (tx) => {
    const current = orNotFound(await tx.lock(organizationId, id), "Pathway");
    const next = await work(tx, current);
    await tx.appendAudit([audit(ctx, actor, clientAddress, action, next)]);
    return next;
  });
};

export const updatePathway = async (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
  input: UpdatePathwayInput,
  completeHeld?: CompleteHeld,
): Promise<PathwayRecord> => {
  let versioned = false;
  const next = await change(
    store,
    ctx,
    actor,
    clientAddress,
    organizationId,
    id,
    "pathway.updated",
    async (tx, current) => {
      const next = updatedPathway(current, input, ctx.now);
      await checkTemplates(store, next);
      await tx.update(next);
      versioned = next.state === "published" && next.version !== current.version;
      if (versioned) await seedProgress(tx, next, ctx.now);
      return next;
    },
  );
  if (versioned && completeHeld) await completeHeld(next);
  return next;
};

/** draft → published: the completion template must still be active; the earners' progress starts. */
export const publishPathway = async (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
  completeHeld?: CompleteHeld,
): Promise<PathwayRecord> => {
  const next = await change(
    store,
    ctx,
    actor,
    clientAddress,
    organizationId,
    id,
    "pathway.published",
    async (tx, current) => {
      checkTransition(current.state, "publish");
      await checkTemplates(store, current);
      const next: PathwayRecord = { ...current, state: "published", published_at: ctx.now, updated_at: ctx.now };
      await tx.update(next);
      await seedProgress(tx, next, ctx.now);
      return next;
    },
  );
  if (completeHeld) await completeHeld(next);
  return next;
};

/** draft or published → archived: kept and read, its progress no longer kept. */
export const archivePathway = (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
): Promise<PathwayRecord> =>
  change(store, ctx, actor, clientAddress, organizationId, id, "pathway.archived", async (tx, current) => {
    checkTransition(current.state, "archive");
    const next: PathwayRecord = { ...current, state: "archived", updated_at: ctx.now };
    await tx.update(next);
    return next;
  });

/** Only a draft is deleted; a published pathway has earners, and is archived instead. */
export const deletePathway = async (
  store: PathwayStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
): Promise<void> => {
  await change(store, ctx, actor, clientAddress, organizationId, id, "pathway.deleted", async (tx, current) => {
    checkTransition(current.state, "delete");
    await tx.delete(current.id);
    return current;
  });
};

/** A pathway's earners' progress, as kept (never recomputed from the badges on a read). */
export const pathwayEarners = async (
  store: PathwayStore,
  actor: MemberActor,
  organizationId: string,
  id: string,
  query: EarnerListQuery,
  page: PageRequest,
): Promise<{ pathway: PathwayRecord; items: PathwayProgressRecord[]; total: number }> => {
  actorMay(actor, organizationId, READ);
  const pathway = await store.get(organizationId, id);
  if (!pathway) throw notFound("Pathway");
  return { pathway, ...(await store.earners(pathway.id, query, page)) };
};
