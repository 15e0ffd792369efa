import { connectAccessRemovedEvent } from "../events/mod.ts";
import type { ConnectStore } from "./ports.ts";

/**
 * The earner removes an application's or a platform's access: the grant and its tokens stop working
 * (every call reads the grant) and an application's organization is told with
 * `user.connect_access.removed`.
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
  // A platform belongs to no organization: there is no one to tell.
  const events =
    grant.organization_id === null
      ? []
      : [
          connectAccessRemovedEvent(userId, {
            id: ctx.newEventId(),
            organization_id: grant.organization_id,
            occurred_at: ctx.now,
          }),
        ];
  return (await store.revokeGrant(grant.id, ctx.now, events)) !== null;
};
