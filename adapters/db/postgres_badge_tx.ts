import type { BadgeTx, IssueLookup } from "../../core/issuing/mod.ts";
import { appendAudit } from "./audit_rows.ts";
import {
  BADGE_FROM,
  type BadgeJoinRow,
  badgeViewOf,
  type IssuerJoinRow,
  ORGANIZATION_SELECT,
  organizationOf,
  TEMPLATE_COLUMNS,
  type TemplateJoinRow,
  templateFrom,
  templateViewOf,
} from "./badge_rows.ts";
import { lookupIssues, writeIssues } from "./grouped_issues.ts";
import {
  holdTemplate,
  recommendTemplates,
  recordCompletion,
  releaseTemplate,
  uncompletedProgress,
} from "./pathway_rows.ts";
import { connectedOrganizations } from "./postgres_connect_store.ts";
import { connectionTx } from "./postgres_connection_store.ts";
import { appendEvents } from "./postgres_event_log.ts";
import { enqueueMails } from "./postgres_mail_outbox.ts";
import type { IssuerAuthorizationRow } from "./rows.ts";
import { FOREIGN_KEY_VIOLATION, type Queryable, UNIQUE_VIOLATION, violates } from "./sql.ts";
import { insertUser, linkBadges } from "./user_rows.ts";

const UNIQUE = UNIQUE_VIOLATION;
const FOREIGN_KEY = FOREIGN_KEY_VIOLATION;

/** A template's stored columns; jsonb ones are sent as JSON text. */
const TEMPLATE_WRITE_COLUMNS = TEMPLATE_COLUMNS;
const TEMPLATE_UPDATE_COLUMNS = TEMPLATE_COLUMNS.filter(
  (c) => c !== "id" && c !== "organization_id" && c !== "created_at",
);
const JSON_COLUMNS = new Set<string>(["skills", "reporting_tags", "alignments"]);
const templateValues = (t: Partial<Record<string, unknown>>, columns: readonly string[]): unknown[] =>
  columns.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(t[c]) : t[c]));

/**
 * The accepted authorizations of `issuerId` by the owner of `templateId` when another organization
 * owns it, held (`for share`) so that ending one waits for this transaction, with the issuer's
 * profile. `covers` (core) decides which of them allow the template.
 */
export const grantsFor = async (q: Queryable, issuerId: string, templateId: string) => {
  const grants = await q.all<IssuerAuthorizationRow>(
    `select a.id, a.grantor_id, a.issuer_id, a.state, a.all_templates, a.badge_template_ids, a.created_at,
       a.updated_at, a.accepted_at, a.ended_at, a.ended_by
     from issuer_authorizations a join badge_templates gt on gt.organization_id = a.grantor_id
     where a.issuer_id = ? and gt.id = ? and a.state = 'accepted' for share of a`,
    [issuerId, templateId],
  );
  if (grants.length === 0) return { grants, issuer: null };
  const [row] = await q.all<IssuerJoinRow>(`select ${ORGANIZATION_SELECT} from organizations o where o.id = ?`, [
    issuerId,
  ]);
  return { grants, issuer: row ? organizationOf(row) : null };
};

/** The `BadgeTx` port on `q`: one transaction, or (issuing outside one) statements that commit on their own. */
export const postgresBadgeTx = (q: Queryable): BadgeTx => ({
  // Issuing one badge is the grouped statements with one row: one SQL text per operation.
  async issueLookup(organizationId, templateId, recipientKey): Promise<IssueLookup> {
    const [answer] = await lookupIssues(q, [{ organizationId, templateId, recipientKey }]);
    return answer as NonNullable<typeof answer>;
  },

  async insertBadge(badge, recipientKey, exclusive, events, mails = []) {
    // The events of the organization that issued it on the owner's behalf go in the same
    // transaction (such a badge is issued only inside one: `inTransaction`, which a refusal
    // abandons). The organizations' event counters are taken in id order, as `appendEvents` takes
    // them, so two organizations issuing for each other at once cannot deadlock.
    const own = events.filter((e) => e.organization_id === badge.organization_id);
    const others = events.filter((e) => e.organization_id !== badge.organization_id);
    const othersFirst = others.some((e) => e.organization_id < badge.organization_id);
    try {
      if (othersFirst) await appendEvents(q, others);
      const [answer] = await writeIssues(q, badge.organization_id, [
        { organizationId: badge.organization_id, badge, recipientKey, exclusive, events: own, mails },
      ]);
      if (!othersFirst && answer === "inserted" && others.length > 0) await appendEvents(q, others);
      return answer as NonNullable<typeof answer>;
    } catch (err) {
      // The template was deleted since the lookup.
      if (violates(err, FOREIGN_KEY)) return "template_gone";
      throw err;
    }
  },

  grantsFor: (issuerId, templateId) => grantsFor(q, issuerId, templateId),
  inTransaction: (work) => work(postgresBadgeTx(q)),

  async lockBadge(organizationId, id) {
    const [row] = await q.all<BadgeJoinRow>(
      `${BADGE_FROM} where b.id = ?${organizationId === null ? "" : " and b.organization_id = ?"} for update of b`,
      organizationId === null ? [id] : [id, organizationId],
    );
    return row ? badgeViewOf(row) : null;
  },

  async updateBadge(b) {
    await q.run(
      `update badges set state = ?, public = ?, revocation_reason = ?, replacement_badge_id = ?, user_id = ?,
         state_updated_at = ?, updated_at = ?
       where id = ?`,
      [
        b.state,
        b.public,
        b.revocation_reason,
        b.replacement_badge_id,
        b.user_id,
        b.state_updated_at,
        b.updated_at,
        b.id,
      ],
    );
  },

  async deleteBadge(id) {
    await q.run("delete from badges where id = ?", [id]);
  },

  async setAcceptToken(badgeId, digest) {
    await q.run("update badges set accept_token_digest = ? where id = ?", [digest, badgeId]);
  },

  async enqueueMails(mails) {
    if (mails.length === 0) return;
    await enqueueMails(q, mails);
  },

  connectedOrganizations: (userIds) => connectedOrganizations(q, userIds),

  async connectedHolders(templateId) {
    const grants = await q.all<{ user_id: string; organization_id: string }>(
      `select distinct user_id, organization_id from connect_grants
       where revoked_at is null and organization_id is not null
         and user_id in (select user_id from badges where badge_template_id = ?)
       order by organization_id`,
      [templateId],
    );
    if (grants.length === 0) return [];
    const byUser = new Map<string, string[]>();
    for (const g of grants) byUser.set(g.user_id, [...(byUser.get(g.user_id) ?? []), g.organization_id]);
    const held = await q.all<BadgeJoinRow>(
      `${BADGE_FROM} where b.badge_template_id = ? and b.user_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)
       order by b.id`,
      [templateId, JSON.stringify([...byUser.keys()])],
    );
    return held.map((row) => {
      const { badge, authorizedIssuer } = badgeViewOf(row);
      return {
        badge,
        organizations: byUser.get(badge.user_id ?? "") ?? [],
        ...(authorizedIssuer ? { authorizedIssuer } : {}),
      };
    });
  },

  async insertTemplate(template) {
    const { badges_count: _count, ...row } = template;
    try {
      await q.run(
        `insert into badge_templates (${TEMPLATE_WRITE_COLUMNS.join(", ")})
         values (${TEMPLATE_WRITE_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? "?::jsonb" : "?")).join(", ")})`,
        templateValues(row, TEMPLATE_WRITE_COLUMNS),
      );
      return "inserted";
    } catch (err) {
      if (violates(err, UNIQUE, "badge_templates_vanity_slug_idx")) return "slug_taken";
      throw err;
    }
  },

  async lockTemplate(organizationId, id) {
    const [row] = await q.all<TemplateJoinRow>(
      `${templateFrom(false)} where t.id = ? and t.organization_id = ? for update of t`,
      [id, organizationId],
    );
    if (!row) return null;
    // Counted after the lock, in a statement of its own: a badge committed while we waited is seen.
    const [count] = await q.all<{ n: number }>("select count(*)::int as n from badges where badge_template_id = ?", [
      id,
    ]);
    return templateViewOf(row, Number(count?.n ?? 0));
  },

  async updateTemplate(template) {
    const { id, organization_id: _org, created_at: _created, badges_count: _count, ...fields } = template;
    try {
      await q.run(
        `update badge_templates set ${TEMPLATE_UPDATE_COLUMNS.map((c) => `${c} = ?${JSON_COLUMNS.has(c) ? "::jsonb" : ""}`).join(", ")}
         where id = ?`,
        [...templateValues(fields, TEMPLATE_UPDATE_COLUMNS), id],
      );
      return "updated";
    } catch (err) {
      if (violates(err, UNIQUE, "badge_templates_vanity_slug_idx")) return "slug_taken";
      throw err;
    }
  },

  async deleteTemplate(id) {
    await q.run("delete from badge_templates where id = ?", [id]);
  },

  insertUser: (user, emailKeys) => insertUser(q, user, emailKeys),
  linkBadges: (userId, emailKeys, now) => linkBadges(q, userId, emailKeys, now),
  appendEvents: (events) => appendEvents(q, events),
  appendAudit: (entries) => appendAudit(q, entries),
  employment: connectionTx(q),
  holdTemplate: (templateId, recipientKey, recipientEmail, at, countsFor) =>
    holdTemplate(q, templateId, recipientKey, recipientEmail, at, countsFor),
  releaseTemplate: (templateId, recipientKey, at, countsFor) =>
    releaseTemplate(q, templateId, recipientKey, at, countsFor),
  uncompletedProgress: (pathwayId) => uncompletedProgress(q, pathwayId),
  recommendTemplates: (records) => recommendTemplates(q, records),
  recordCompletion: (pathwayId, recipientKey, badgeId, at) => recordCompletion(q, pathwayId, recipientKey, badgeId, at),
});
