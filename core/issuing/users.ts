import { validationFailed } from "../errors/mod.ts";
import type { IssuingContext, IssuingDeps } from "./context.ts";
import { newUserRecord, type UserCreateInput, type UserRecord, userEmailKeys } from "./earners.ts";
import type { EarnerChanges } from "./ports.ts";

/**
 * Creates an earner account. Its addresses must belong to no other account; badges already sent
 * to them are linked to the new account, as a later issue to them would be.
 */
export const createUser = async (
  deps: Pick<IssuingDeps, "store">,
  ctx: Pick<IssuingContext, "now" | "newId">,
  input: UserCreateInput,
): Promise<{ user: UserRecord; linkedBadges: number }> => {
  const blank = (["first_name", "last_name"] as const).filter((k) => input[k].trim() === "");
  if (blank.length > 0) {
    throw validationFailed(
      "Validation failed",
      blank.map((field) => ({ field, message: "must not be blank" })),
    );
  }
  const user = newUserRecord(input, { id: ctx.newId(), now: ctx.now });
  const keys = userEmailKeys(user);
  return deps.store.transaction(async (tx: EarnerChanges) => {
    if ((await tx.insertUser(user, keys)) === "email_taken") {
      throw validationFailed("An account already owns this e-mail address", [
        { field: "email", message: "already belongs to an account" },
      ]);
    }
    const linkedBadges = await tx.linkBadges(user.id, keys, ctx.now);
    return { user, linkedBadges };
  });
};
