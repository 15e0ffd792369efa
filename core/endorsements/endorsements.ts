import { auditRecord } from "../audit/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { actorMay, auditByOf, type MemberActor } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import type {
  CreateEndorsementInput,
  EndorsementRecord,
  EndorsementSide,
  EndorsementStore,
  EndorsementView,
} from "./records.ts";
import { type EndorsementAction, mayEndorse, transition } from "./rules.ts";

/**
 * An endorsement speaks for the organization as its profile does, so giving, withdrawing,
 * accepting and rejecting one take `profile.update`, and reading them `profile.read`.
 */
const WRITE = "profile.update";
const READ = "profile.read";

/** `organizationId` endorses another organization's template or the organization itself; it waits for that side. */
export const createEndorsement = async (
  store: EndorsementStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  input: CreateEndorsementInput,
): Promise<EndorsementView> => {
  actorMay(actor, organizationId, WRITE);
  const comment = input.comment.trim();
  if (comment.length === 0)
    throw validationFailed("Invalid endorsement", [{ field: "comment", message: "must not be blank" }]);
  const owner = await store.targetOwner(input.target_kind, input.target_id);
  if (owner === null)
    throw validationFailed("Invalid endorsement", [
      {
        field: "target_id",
        message: `names no ${input.target_kind === "organization" ? "organization" : "badge template"}`,
      },
    ]);
  mayEndorse(organizationId, owner);
  const record: EndorsementRecord = {
    id: ctx.newId(),
    endorser_id: organizationId,
    endorsed_id: owner,
    target_kind: input.target_kind,
    target_id: input.target_id,
    comment,
    state: "pending",
    created_at: ctx.now,
    updated_at: ctx.now,
    accepted_at: null,
  };
  await store.transaction(async (tx) => {
    if (!(await tx.insertIfNoneLive(record)))
      throw validationFailed("This organization already endorses it (pending or accepted); withdraw that one first", [
        { field: "target_id", message: "already endorsed" },
      ]);
    await tx.appendAudit([
      auditRecord(
        ctx,
        auditByOf(actor, clientAddress),
        organizationId,
        "endorsement.created",
        `endorsement:${record.id}`,
        {
          endorsed_organization_id: owner,
          target_kind: record.target_kind,
          target_id: record.target_id,
        },
      ),
    ]);
  });
  return orNotFound(await store.get(record.id), "Endorsement");
};

const AUDIT = {
  accept: "endorsement.accepted",
  reject: "endorsement.rejected",
  withdraw: "endorsement.withdrawn",
} as const;

/** Accepts, rejects or withdraws an endorsement as `organizationId` (`transition` decides who may). */
export const changeEndorsement = async (
  store: EndorsementStore,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
  action: EndorsementAction,
): Promise<EndorsementView> => {
  actorMay(actor, organizationId, WRITE);
  await store.transaction(async (tx) => {
    const current = orNotFound(await tx.lock(id), "Endorsement");
    const state = transition(current, organizationId, action);
    await tx.update({
      ...current,
      state,
      updated_at: ctx.now,
      ...(state === "accepted" ? { accepted_at: ctx.now } : {}),
    });
    await tx.appendAudit([
      auditRecord(ctx, auditByOf(actor, clientAddress), organizationId, AUDIT[action], `endorsement:${id}`, {
        from: current.state,
        to: state,
      }),
    ]);
  });
  return orNotFound(await store.get(id), "Endorsement");
};

/** The endorsements `organizationId` gave or received, newest first. */
export const listEndorsements = (
  store: EndorsementStore,
  actor: MemberActor,
  organizationId: string,
  side: EndorsementSide,
  page: PageRequest,
): Promise<{ items: EndorsementView[]; total: number }> => {
  actorMay(actor, organizationId, READ);
  return store.list(organizationId, side, page);
};

/** One endorsement, seen by either of its sides. */
export const getEndorsement = async (
  store: EndorsementStore,
  actor: MemberActor,
  organizationId: string,
  id: string,
): Promise<EndorsementView> => {
  actorMay(actor, organizationId, READ);
  const found = await store.get(id);
  if (!found || (found.endorser_id !== organizationId && found.endorsed_id !== organizationId))
    throw notFound("Endorsement");
  return found;
};
