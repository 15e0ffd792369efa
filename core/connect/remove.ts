import { connectAccessRemovedEvent } from "../events/mod.ts";
import type { ConnectStore } from "./ports.ts";

/**
 * The earner removes an application's access: the grant and its tokens stop working (the user API
 * reads the grant on every call) and its organization is told with `user.connect_access.removed`.
 * False when the earner holds no such active grant.
 */
export const removeAccess = async (
  store: Pick<ConnectStore, "grantsOf" | "revokeGrant">,
  ctx: { now: Date; newEventId: () => string },
  userId: string,
  grantId: string,
): Promise<boolean> => {
  const grant = (await store.grantsOf(userId)).find((g) => g.id === grantId);
  if (!grant) return false;
  const event = connectAccessRemovedEvent(userId, {
    id: ctx.newEventId(),
    organization_id: grant.organization_id,
    occurred_at: ctx.now,
  });
  return (await store.revokeGrant(grant.id, ctx.now, [event])) !== null;
};
