import { auditRecord } from "../audit/mod.ts";
import type { Context } from "../credentials/mod.ts";
import { notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import type { EndorsementEventType, EventRecord } from "../events/mod.ts";
import type { OutboxMail } from "../mail/mod.ts";
import { actorMay, allowed, auditByOf, type MemberActor, ROLES } from "../members/mod.ts";
import type { PageRequest } from "../shared/mod.ts";
import { endorsementJson } from "./credential.ts";
import { endorsementEvent } from "./events.ts";
import type {
  CreateEndorsementInput,
  EndorsementDeps,
  EndorsementRecord,
  EndorsementSide,
  EndorsementStore,
  EndorsementTx,
  EndorsementView,
} from "./records.ts";
import { type EndorsementAction, mayEndorse, transition } from "./rules.ts";

/**
 * An endorsement speaks for the organization as its profile does, so giving, withdrawing,
 * accepting and rejecting one take `profile.update`, and reading them `profile.read`.
 */
const WRITE = "profile.update";
const READ = "profile.read";

/** Who is told of an endorsement received: the members who may answer it, the first few. */
const ANSWERING_ROLES = ROLES.filter((role) => allowed(role, WRITE));
const MAIL_AT_MOST = 5;

/**
 * The change's event in both organizations' records (each its own event id), with the
 * endorsement as the API answers it after the change.
 */
const bothSides = async (
  deps: EndorsementDeps,
  tx: EndorsementTx,
  ctx: Context,
  kind: EndorsementEventType,
  id: string,
): Promise<{ view: EndorsementView; events: EventRecord[] }> => {
  const view = orNotFound(await tx.view(id), "Endorsement");
  const json = endorsementJson(view, deps.v3Base);
  const events = [view.endorser_id, view.endorsed_id].map((organization_id) =>
    endorsementEvent(kind, json, { id: deps.newEventId(), organization_id, occurred_at: ctx.now }),
  );
  return { view, events };
};

/** The mail telling the endorsed organization's answering members that an endorsement waits for them. */
const receivedMail = (deps: EndorsementDeps, ctx: Context, view: EndorsementView, to: string): OutboxMail => ({
  id: ctx.newId(),
  kind: "endorsement_received",
  organization_id: view.endorsed_id,
  content: {
    template: "endorsement_received",
    to,
    endorser_name: view.endorser_name,
    organization_name: view.endorsed_name,
    target_kind: view.target_kind,
    target_name: view.target_name ?? view.endorsed_name,
    comment: view.comment,
    link: `${deps.publicUrl.replace(/\/+$/, "")}/console/${view.endorsed_id}/endorsements`,
  },
  sent_event: null,
  created_at: ctx.now,
});

/** `organizationId` endorses another organization's template or the organization itself; it waits for that side. */
export const createEndorsement = async (
  deps: EndorsementDeps,
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
  const { store } = deps;
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
    const { view, events } = await bothSides(deps, tx, ctx, "endorsement.created", record.id);
    await tx.appendEvents(events);
    for (const to of await tx.memberAddresses(owner, ANSWERING_ROLES, MAIL_AT_MOST))
      await tx.enqueueMail(receivedMail(deps, ctx, view, to));
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
  deps: EndorsementDeps,
  ctx: Context,
  actor: MemberActor,
  clientAddress: string | null,
  organizationId: string,
  id: string,
  action: EndorsementAction,
): Promise<EndorsementView> => {
  actorMay(actor, organizationId, WRITE);
  const { store } = deps;
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
    await tx.appendEvents((await bothSides(deps, tx, ctx, "endorsement.state.changed", id)).events);
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
