import { randomUUID } from "node:crypto";
import type { Role } from "../../core/members/mod.ts";
import { httpEarner } from "./earner_http.ts";
import type { TestLaurel } from "./laurel.ts";
import type { startSmtpSink } from "./smtp_sink.ts";

type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

/** The account id of a signed-up address. */
export const accountOf = async (laurel: TestLaurel, email: string): Promise<string> => {
  const row = await laurel.db.one<{ user_id: string }>("select user_id from user_emails where email_key = ?", [
    email.trim().toLowerCase(),
  ]);
  if (!row) throw new Error(`no account for ${email}`);
  return row.user_id;
};

/** Makes the account of `email` a member of the organization with `role` (an operator's fixture). */
export const makeMember = async (laurel: TestLaurel, organizationId: string, email: string, role: Role) => {
  const userId = await accountOf(laurel, email);
  const now = new Date();
  await laurel.db.run(
    `insert into memberships (id, organization_id, user_id, role, created_at, updated_at)
     values (?::uuid, ?::uuid, ?::uuid, ?, ?, ?)
     on conflict (organization_id, user_id) do update set role = excluded.role`,
    [randomUUID(), organizationId, userId, role, now, now],
  );
};

/** A signed-in browser (HTTP only) of a member with `role`. */
export const signedInMember = async (
  laurel: TestLaurel,
  smtp: SmtpSink,
  organizationId: string,
  email: string,
  role: Role | null,
) => {
  const earner = httpEarner(laurel.origin, smtp);
  await earner.signIn(email);
  if (role) await makeMember(laurel, organizationId, email, role);
  return earner;
};
