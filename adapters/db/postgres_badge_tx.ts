import { LIVE_BADGE_STATES } from "../../core/badges/mod.ts";
import type { BadgeTx, IssueLookup, UserRecord } from "../../core/issuing/mod.ts";
import {
  BADGE_FROM,
  badgeInsertValues,
  badgeViewOf,
  INSERT_BADGE,
  ORGANIZATION_SELECT,
  organizationOf,
  placeholders,
  rows,
  TEMPLATE_SELECT,
  templateFrom,
  templateOf,
  templateViewOf,
} from "./badge_rows.ts";
import { BadgeEntity, BadgeTemplateEntity, UserEmailEntity, UserEntity } from "./entities_badges.ts";
import type { Em } from "./orm.ts";
import { connectionTx } from "./postgres_connection_store.ts";
import { appendEvents } from "./postgres_event_log.ts";
import { outboxInsertCte, outboxRows } from "./postgres_mail_outbox.ts";
import { sqlAll, sqlRun } from "./sql.ts";

const LIVE = LIVE_BADGE_STATES.map((s) => `'${s}'`).join(", ");

/** Whether `err` is the database refusing a write on constraint `name` (SQLSTATE `sqlState`). */
const violates = (err: unknown, sqlState: string, name?: string): boolean => {
  const e = (err ?? {}) as { code?: string; sqlState?: string; constraint?: string; message?: string };
  if (e.code !== sqlState && e.sqlState !== sqlState) return false;
  return name === undefined || e.constraint === name || (e.message ?? "").includes(name);
};
const UNIQUE = "23505";
const FOREIGN_KEY = "23503";

const ISSUE_LOOKUP = `select ${TEMPLATE_SELECT}, ${ORGANIZATION_SELECT},
    (select json_build_object('user_id', ue.user_id, 'confirmed', ue.confirmed)
       from user_emails ue where ue.email_key = ?) as earner,
    exists(select 1 from badges x where x.recipient_email_key = ? and x.badge_template_id = t.id
             and x.state in (${LIVE})) as has_live
  from badge_templates t join organizations o on o.id = t.organization_id
  where t.id = ? and t.organization_id = ?`;

/** The `BadgeTx` port on one MikroORM transaction (`em` is the transactional EntityManager). */
export const postgresBadgeTx = (em: Em): BadgeTx => ({
  async issueLookup(organizationId, templateId, recipientKey): Promise<IssueLookup> {
    const [row] = await rows(em, ISSUE_LOOKUP, [recipientKey, recipientKey, templateId, organizationId]);
    if (!row) return { template: null, issuer: null, earner: null, hasLiveBadge: false };
    const earner = row.earner as { user_id: string; confirmed: boolean } | null;
    return {
      template: templateOf(row),
      issuer: organizationOf(row),
      earner: earner ? { user_id: earner.user_id, email_confirmed: earner.confirmed } : null,
      hasLiveBadge: row.has_live === true,
    };
  },

  async insertBadge(badge, recipientKey, exclusive, events, mails = []) {
    try {
      // One statement: the badge, its outbox mails, the organization's event counter and the events.
      const insert = {
        cte: `b as (${INSERT_BADGE} returning 1)${mails.length > 0 ? `, ${outboxInsertCte("m", "where exists (select 1 from b)")}` : ""}`,
        values: [
          ...badgeInsertValues(badge, recipientKey, exclusive),
          ...(mails.length > 0 ? [outboxRows(mails.map((mail) => ({ mail })))] : []),
        ],
      };
      if (events.length > 0) await appendEvents(em, events, { with: insert });
      else await sqlRun(em, `with ${insert.cte} select 1`, insert.values);
      return "inserted";
    } catch (err) {
      if (violates(err, UNIQUE, "badges_live_recipient_idx")) return "duplicate";
      if (violates(err, FOREIGN_KEY)) return "template_gone";
      throw err;
    }
  },

  async lockBadge(organizationId, id) {
    const [row] = await rows(
      em,
      `${BADGE_FROM} where b.id = ?${organizationId === null ? "" : " and b.organization_id = ?"} for update of b`,
      organizationId === null ? [id] : [id, organizationId],
    );
    return row ? badgeViewOf(row) : null;
  },

  async updateBadge(b) {
    await em.nativeUpdate(
      BadgeEntity,
      { id: b.id },
      {
        state: b.state,
        public: b.public,
        revocation_reason: b.revocation_reason,
        replacement_badge_id: b.replacement_badge_id,
        user_id: b.user_id,
        state_updated_at: b.state_updated_at,
        updated_at: b.updated_at,
      },
    );
  },

  async deleteBadge(id) {
    await em.nativeDelete(BadgeEntity, { id });
  },

  async connectedOrganizations(userIds) {
    if (userIds.length === 0) return [];
    const found = await sqlAll<{ organization_id: string }>(
      em,
      `select distinct organization_id from connect_grants
       where user_id in (${placeholders(userIds.length)}) and revoked_at is null order by organization_id`,
      userIds,
    );
    return found.map((r) => r.organization_id);
  },

  async connectedHolders(templateId) {
    const grants = await sqlAll<{ user_id: string; organization_id: string }>(
      em,
      `select distinct user_id, organization_id from connect_grants
       where revoked_at is null and user_id in (select user_id from badges where badge_template_id = ?)
       order by organization_id`,
      [templateId],
    );
    if (grants.length === 0) return [];
    const byUser = new Map<string, string[]>();
    for (const g of grants) byUser.set(g.user_id, [...(byUser.get(g.user_id) ?? []), g.organization_id]);
    const held = await rows(
      em,
      `${BADGE_FROM} where b.badge_template_id = ? and b.user_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)
       order by b.id`,
      [templateId, JSON.stringify([...byUser.keys()])],
    );
    return held.map((row) => {
      const { badge } = badgeViewOf(row);
      return { badge, organizations: byUser.get(badge.user_id ?? "") ?? [] };
    });
  },

  async insertTemplate(template) {
    const { badges_count: _count, ...row } = template;
    try {
      await em.insert(BadgeTemplateEntity, row);
      return "inserted";
    } catch (err) {
      if (violates(err, UNIQUE, "badge_templates_vanity_slug_idx")) return "slug_taken";
      throw err;
    }
  },

  async lockTemplate(organizationId, id) {
    const [row] = await rows(em, `${templateFrom(false)} where t.id = ? and t.organization_id = ? for update of t`, [
      id,
      organizationId,
    ]);
    if (!row) return null;
    // Counted after the lock, in a statement of its own: a badge committed while we waited is seen.
    const [count] = await rows(em, "select count(*)::int as n from badges where badge_template_id = ?", [id]);
    return templateViewOf(row, Number(count?.n ?? 0));
  },

  async updateTemplate(template) {
    const { id, organization_id: _org, created_at: _created, badges_count: _count, ...fields } = template;
    try {
      await em.nativeUpdate(BadgeTemplateEntity, { id }, fields);
      return "updated";
    } catch (err) {
      if (violates(err, UNIQUE, "badge_templates_vanity_slug_idx")) return "slug_taken";
      throw err;
    }
  },

  async deleteTemplate(id) {
    await em.nativeDelete(BadgeTemplateEntity, { id });
  },

  async insertUser(user: UserRecord, emailKeys: string[]) {
    try {
      await em.insert(UserEntity, {
        id: user.id,
        first_name: user.first_name,
        last_name: user.last_name,
        created_at: user.created_at,
        updated_at: user.updated_at,
      });
      await em.insertMany(
        UserEmailEntity,
        user.emails.map((e, position) => ({
          email_key: emailKeys[position] as string,
          user_id: user.id,
          email: e.email,
          position,
          confirmed: e.confirmed,
          created_at: user.created_at,
        })),
      );
      return "inserted";
    } catch (err) {
      if (violates(err, UNIQUE, "user_emails_pkey")) return "email_taken";
      throw err;
    }
  },

  async linkBadges(userId, emailKeys, now) {
    if (emailKeys.length === 0) return 0;
    const result = (await em
      .getConnection()
      .execute(
        `update badges set user_id = ?, updated_at = ? where user_id is null and recipient_email_key in (${placeholders(emailKeys.length)})`,
        [userId, now, ...emailKeys],
        "run",
        em.getTransactionContext(),
      )) as { affectedRows?: number };
    return result.affectedRows ?? 0;
  },

  appendEvents: (events) => appendEvents(em, events),
  employment: connectionTx(em),
});
