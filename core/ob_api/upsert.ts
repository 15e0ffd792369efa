import { validationFailed } from "../errors/mod.ts";
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
 * upsertCredential: a platform delivers a credential (a compact JWS) to the earner's wallet. It
 * goes where a pasted one goes, the external badges, and is verified the same way. One already
 * there is verified again and answered as an update.
 */
export const upsertCredential = async (
  deps: ExternalBadgeDeps,
  ctx: ExternalBadgeContext,
  owner: ExternalBadgeOwner,
  jws: string,
): Promise<{ created: boolean; record: ExternalBadgeRecord }> => {
  const { sourceKey } = readExternalBadgeInput(deps.verify, { credential: jws });
  const held = (await deps.store.listForUser(owner.userId)).find((r) => r.source_key === sourceKey);
  if (held) return { created: false, record: await recheckExternalBadge(deps, ctx, owner, held.id) };
  return { created: true, record: await addExternalBadge(deps, ctx, owner, { credential: jws }) };
};

/** A credential sent as JSON: Laurel verifies other issuers' credentials by their VC-JWT signature. */
export const jsonCredentialRefused = () =>
  validationFailed(
    "Send the credential as a compact JWS (Content-Type: text/plain): Laurel verifies credentials from other issuers by their VC-JWT signature",
  );
