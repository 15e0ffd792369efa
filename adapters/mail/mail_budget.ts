import type { MailBudget } from "../../core/mail/mod.ts";

const HOUR = 3_600_000;

/**
 * Each organization's notification budget, `perHour` messages, counted in a counter every
 * process shares; a message over the budget is not sent and is logged once it is refused.
 */
export const sharedMailBudget = (
  counter: { hit(key: string, windowMs: number): Promise<{ hits: number }> },
  perHour: number,
  log: () => { info(obj: object, msg: string): void },
): MailBudget => ({
  async take(organizationId) {
    const { hits } = await counter.hit(`mail:${organizationId}`, HOUR);
    if (hits <= perHour) return true;
    log().info({ organization_id: organizationId, per_hour: perHour }, "mail budget spent: notification not sent");
    return false;
  },
});
