import type { UserRecord } from "../../core/issuing/mod.ts";
import type { UserEmailRow } from "./rows.ts";
import { placeholders, type Queryable, UNIQUE_VIOLATION, violates } from "./sql.ts";

/** The account an address belongs to, and whether it confirmed it; null for an address no account holds. */
export const addressOwner = async (
  q: Queryable,
  emailKey: string,
): Promise<{ user_id: string; confirmed: boolean } | null> => {
  const r = await q.one<Pick<UserEmailRow, "user_id" | "confirmed">>(
    "select user_id, confirmed from user_emails where email_key = ?",
    [emailKey],
  );
  return r ? { user_id: r.user_id, confirmed: r.confirmed === true } : null;
};

/**
 * An account and its addresses (`emailKeys[i]` the key of `user.emails[i]`), or "email_taken".
 * The account's credential subject is the one its addresses' badges already name, if any
 * (`recipientSubjectId`): the badges it is about to hold and the ones issued to it later then name
 * one subject.
 */
export const insertUser = async (
  q: Queryable,
  user: UserRecord,
  emailKeys: string[],
): Promise<"inserted" | "email_taken"> => {
  try {
    const earlier =
      emailKeys.length === 0
        ? "null"
        : `(select s.subject_id from badges s where s.recipient_email_key in (${placeholders(emailKeys.length)})
            order by s.created_at, s.id limit 1)`;
    await q.run(
      `insert into users (id, first_name, last_name, created_at, updated_at, subject_id)
       values (?, ?, ?, ?, ?, coalesce(${earlier}, gen_random_uuid()))`,
      [user.id, user.first_name, user.last_name, user.created_at, user.updated_at, ...emailKeys],
    );
    if (user.emails.length > 0) {
      const values = user.emails.flatMap((e, position) => [
        emailKeys[position],
        user.id,
        e.email,
        position,
        e.confirmed,
        user.created_at,
      ]);
      await q.run(
        `insert into user_emails (email_key, user_id, email, position, confirmed, created_at)
         values ${placeholders(user.emails.length, "(?, ?, ?, ?, ?, ?)")}`,
        values,
      );
    }
    return "inserted";
  } catch (err) {
    if (violates(err, UNIQUE_VIOLATION, "user_emails_pkey")) return "email_taken";
    throw err;
  }
};

/** Badges sent to any of `emailKeys` and not yet held by an account go to `userId`. */
export const linkBadges = async (q: Queryable, userId: string, emailKeys: string[], now: Date): Promise<number> => {
  if (emailKeys.length === 0) return 0;
  return q.run(
    `update badges set user_id = ?, updated_at = ?
     where user_id is null and recipient_email_key in (${placeholders(emailKeys.length)})`,
    [userId, now, ...emailKeys],
  );
};
