import { type Static, Type } from "typebox";
import { normalizeEmail } from "../badges/mod.ts";
import { isoMillis } from "../shared/mod.ts";

/**
 * Earners ("users" of the user interface): people who receive badges. An account owns e-mail
 * addresses; a badge sent to one of them is linked to the account (`BadgeRecord.user_id`).
 */
export interface UserEmail {
  /** As given (trimmed); compared through `normalizeEmail`. */
  email: string;
  confirmed: boolean;
}

export interface UserRecord {
  id: string;
  first_name: string;
  last_name: string;
  /** The first is the primary address. */
  emails: UserEmail[];
  created_at: Date;
  updated_at: Date;
}

const Email = Type.String({ format: "email", maxLength: 254 });
const Name = Type.String({ minLength: 1, maxLength: 255 });

/** `confirmed` applies to every address given (an internal tool creating an account vouches for them). */
export const UserCreateInput = Type.Object(
  {
    email: Email,
    additional_emails: Type.Optional(Type.Array(Email, { maxItems: 20 })),
    first_name: Name,
    last_name: Name,
    confirmed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UserCreateInput = Static<typeof UserCreateInput>;

export const UserJsonSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  first_name: Type.String(),
  last_name: Type.String(),
  full_name: Type.String(),
  emails: Type.Array(Type.Object({ email: Type.String(), confirmed: Type.Boolean(), primary: Type.Boolean() })),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});
export type UserJson = Static<typeof UserJsonSchema>;

/** The new account, its addresses de-duplicated by their normalized form (first one wins). */
export const newUserRecord = (input: UserCreateInput, ctx: { id: string; now: Date }): UserRecord => {
  const seen = new Set<string>();
  const emails: UserEmail[] = [];
  for (const raw of [input.email, ...(input.additional_emails ?? [])]) {
    const key = normalizeEmail(raw);
    if (seen.has(key)) continue;
    seen.add(key);
    emails.push({ email: raw.trim(), confirmed: input.confirmed ?? false });
  }
  return {
    id: ctx.id,
    first_name: input.first_name.trim(),
    last_name: input.last_name.trim(),
    emails,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
};

export const userEmailKeys = (user: Pick<UserRecord, "emails">): string[] =>
  user.emails.map((e) => normalizeEmail(e.email));

export const userJson = (user: UserRecord): UserJson => ({
  id: user.id,
  first_name: user.first_name,
  last_name: user.last_name,
  full_name: `${user.first_name} ${user.last_name}`.trim(),
  emails: user.emails.map((e, i) => ({ email: e.email, confirmed: e.confirmed, primary: i === 0 })),
  created_at: isoMillis(user.created_at),
  updated_at: isoMillis(user.updated_at),
});
