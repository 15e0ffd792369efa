import { CoreError, notFound } from "../errors/mod.ts";
import type { MailContent, MailOutbox } from "../mail/mod.ts";
import type { EmployeeRecord, Employer } from "./employee_records.ts";
import type { SendInvitationsBody } from "./employee_schemas.ts";

/** Where an invited employee goes: the earner pages' sign-in, then their wallet. */
export const invitationLink = (publicUrl: string): string =>
  `${publicUrl.replace(/\/+$/, "")}/sign_in?next=${encodeURIComponent("/wallet")}`;

/** What the invitation e-mail says: who invites, and the link to sign in and connect. */
export const invitationContent = (employee: EmployeeRecord, employer: Employer, publicUrl: string): MailContent => ({
  template: "employee_invitation",
  to: employee.email,
  first_name: employee.first_name,
  employer_name: employer.name,
  link: invitationLink(publicUrl),
});

/**
 * A fixed window of `perWindow` invitation e-mails per organization. The counts are plain data
 * the caller keeps (per process); `takeInvitations` answers whether `n` more fit now.
 */
export interface InvitationBudget {
  perWindow: number;
  windowMs: number;
  used: Map<string, { windowStart: number; count: number }>;
}

export const takeInvitations = (budget: InvitationBudget, organizationId: string, n: number, now: Date): boolean => {
  const t = now.getTime();
  const current = budget.used.get(organizationId);
  const entry = current && t - current.windowStart < budget.windowMs ? current : { windowStart: t, count: 0 };
  if (entry.count + n > budget.perWindow) return false;
  budget.used.set(organizationId, { windowStart: entry.windowStart, count: entry.count + n });
  return true;
};

export interface InvitationDeps {
  /** Invitations are written to the mail outbox, which a sender delivers with retries. */
  outbox: Pick<MailOutbox, "enqueue">;
  newId: () => string;
  publicUrl: string;
  budget: InvitationBudget;
  /** The employer and the chosen records: the listed ids, or every record in state `created`. */
  pick(
    organizationId: string,
    which: { ids: string[] } | { state: "created" },
  ): Promise<{
    employer: Employer | null;
    records: EmployeeRecord[];
  }>;
  markInvited(organizationId: string, ids: string[], at: Date): Promise<void>;
}

export interface InvitationResult {
  sent: string[];
  failed: string[];
}

/**
 * Queues the invitation e-mail to the chosen employees and sets their `last_invitation_sent_at`.
 * Their state stays `created`: `pending` is the connection prompt an earner sees once signed in
 * (`employment.connection.pending`), which an e-mail does not show. Unknown ids are a 404 (nothing sent); more e-mails
 * than the organization's budget left is a 429 (nothing sent).
 */
export const sendInvitations = async (
  deps: InvitationDeps,
  now: Date,
  organizationId: string,
  body: SendInvitationsBody,
): Promise<InvitationResult> => {
  const ids = "all" in body ? null : [...new Set(body.employee_ids.map((id) => id.toLowerCase()))];
  const { employer, records } = await deps.pick(organizationId, ids ? { ids } : { state: "created" });
  if (!employer) throw notFound("Organization");
  if (ids && records.length < ids.length) throw notFound("Employee");
  if (!takeInvitations(deps.budget, organizationId, records.length, now))
    throw new CoreError("rate_limited", "Too many invitations for this organization; try again later");
  const sent: string[] = [];
  const failed: string[] = [];
  for (const r of records) {
    try {
      await deps.outbox.enqueue({
        id: deps.newId(),
        kind: "employee_invitation",
        organization_id: organizationId,
        content: invitationContent(r, employer, deps.publicUrl),
        sent_event: null,
        created_at: now,
      });
      sent.push(r.id);
    } catch {
      failed.push(r.id);
    }
  }
  if (sent.length > 0) await deps.markInvited(organizationId, sent, now);
  return { sent, failed };
};
