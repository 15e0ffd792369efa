import {
  addExternalBadge,
  type ExternalBadgeContext,
  type ExternalBadgeDeps,
  type ExternalBadgeOwner,
  type ExternalBadgeRecord,
  readExternalBadgeInput,
  recheckExternalBadge,
} from "../workforce/mod.ts";

/**
 * upsertCredential: a platform delivers a credential (a compact JWS, or JSON with a Data Integrity
 * proof) to the earner's wallet. It goes where a pasted one goes, the external badges, and is
 * verified the same way. One already there is verified again and answered as an update.
 */
export const upsertCredential = async (
  deps: ExternalBadgeDeps,
  ctx: ExternalBadgeContext,
  owner: ExternalBadgeOwner,
  credential: string,
): Promise<{ created: boolean; record: ExternalBadgeRecord }> => {
  const { sourceKey } = readExternalBadgeInput(deps.verify, { credential });
  const held = (await deps.store.listForUser(owner.userId)).find((r) => r.source_key === sourceKey);
  if (held) return { created: false, record: await recheckExternalBadge(deps, ctx, owner, held.id) };
  return { created: true, record: await addExternalBadge(deps, ctx, owner, { credential }) };
};
