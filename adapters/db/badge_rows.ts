import {
  type BadgeRecord,
  type BadgeTemplateData,
  type BadgeTemplateRecord,
  LIVE_BADGE_STATES,
} from "../../core/badges/mod.ts";
import type { BadgeView, TemplateView } from "../../core/issuing/mod.ts";
import type { BadgeRow, BadgeTemplateRow, OrganizationRow } from "./rows.ts";
import { toDateOrNull } from "./sql.ts";

/**
 * SQL pieces shared by the badge store: every joined table's columns are selected under a prefix
 * (`b__state`, `t__name`, `o__name`) and read back into plain records.
 */
export const TEMPLATE_COLUMNS: readonly (keyof BadgeTemplateData)[] = [
  "id",
  "organization_id",
  "name",
  "description",
  "skills",
  "reporting_tags",
  "notification_message",
  "image_url",
  "image",
  "url",
  "vanity_slug",
  "state",
  "public",
  "criteria_url",
  "global_activity_url",
  "alignments",
  "allow_duplicate_badges",
  "created_at",
  "updated_at",
];

const BADGE_COLUMNS: readonly (keyof BadgeRecord)[] = [
  "id",
  "organization_id",
  "issued_by_organization_id",
  "badge_template_id",
  "state",
  "public",
  "issued_to_first_name",
  "issued_to_middle_name",
  "issued_to_last_name",
  "recipient_email",
  "issued_at",
  "expires_at",
  "evidence",
  "issuer_earner_id",
  "locale",
  "suppress_badge_notification_email",
  "notification_message",
  "revocation_reason",
  "replaces_badge_id",
  "replacement_badge_id",
  "user_id",
  "recipient_salt",
  "subject_id",
  "accept_token_digest",
  "state_updated_at",
  "created_at",
  "updated_at",
];

/** The live badge states as an SQL list (`'pending', 'accepted'`), for `state in (...)`. */
export const LIVE = LIVE_BADGE_STATES.map((s) => `'${s}'`).join(", ");

/** Every column an issue writes: the record's, then the duplicate-rule keys. */
export const BADGE_INSERT_COLUMNS: readonly string[] = [...BADGE_COLUMNS, "recipient_email_key", "exclusive"];

/** The organization fields a shape needs (`OrganizationRef`). */
const ORGANIZATION_COLUMNS = ["id", "name", "description", "email", "website_url", "image_url"] as const;
export type IssuerFields = Pick<OrganizationRow, (typeof ORGANIZATION_COLUMNS)[number]>;

const columns = (alias: string, names: readonly string[]): string =>
  names.map((c) => `${alias}.${c} as ${alias}__${c}`).join(", ");

export const TEMPLATE_SELECT = columns("t", TEMPLATE_COLUMNS);
export const BADGE_SELECT = columns("b", BADGE_COLUMNS);
export const ORGANIZATION_SELECT = columns("o", ORGANIZATION_COLUMNS);
/** The authorized issuer of a badge issued on its owner's behalf (`ai`, left-joined: null otherwise). */
const AUTHORIZED_ISSUER_SELECT = columns("ai", ORGANIZATION_COLUMNS);

/** A table's columns selected under an alias prefix (`t.name as t__name`). */
type Prefixed<P extends string, R> = { [K in keyof R & string as `${P}__${K}`]: R[K] };

type BadgeFields = Prefixed<"b", BadgeRecord>;
type TemplateFields = Prefixed<"t", BadgeTemplateRow>;
/** `ORGANIZATION_SELECT`: an issuer. */
export type IssuerJoinRow = Prefixed<"o", IssuerFields>;

/** `TEMPLATE_SELECT, ORGANIZATION_SELECT`: a template and its owner. */
export type TemplateJoinRow = TemplateFields & IssuerJoinRow;
/** `BADGE_FROM`: a badge with its template and issuer, and its authorized issuer when it has one. */
export type BadgeJoinRow = BadgeFields &
  Prefixed<"b", Pick<BadgeRow, "status_index">> &
  TemplateJoinRow &
  Partial<Prefixed<"ai", IssuerFields>>;

const TIMESTAMPS = new Set(["issued_at", "expires_at", "state_updated_at", "created_at", "updated_at"]);

/** The columns of one alias out of a joined row, by the names its prefixed type declares. */
const pick = <T>(row: object, alias: string, names: readonly string[]): T => {
  const from = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const c of names) {
    const value = from[`${alias}__${c}`];
    out[c] = TIMESTAMPS.has(c) ? toDateOrNull(value) : value;
  }
  return out as T;
};

export const templateOf = (row: TemplateFields): BadgeTemplateData => pick(row, "t", TEMPLATE_COLUMNS);
export const badgeOf = (row: BadgeFields): BadgeRecord => pick(row, "b", BADGE_COLUMNS);
export const organizationOf = (row: IssuerJoinRow): IssuerFields => pick(row, "o", ORGANIZATION_COLUMNS);

export const badgeViewOf = (row: BadgeJoinRow): BadgeView => ({
  badge: badgeOf(row),
  template: templateOf(row),
  issuer: organizationOf(row),
  ...(typeof row.ai__id === "string" ? { authorizedIssuer: pick<IssuerFields>(row, "ai", ORGANIZATION_COLUMNS) } : {}),
  ...(typeof row.b__status_index === "number" ? { statusIndex: row.b__status_index } : {}),
});

export const templateViewOf = (row: TemplateJoinRow, badgesCount: number): TemplateView => ({
  template: { ...templateOf(row), badges_count: badgesCount } satisfies BadgeTemplateRecord,
  owner: organizationOf(row),
});

/** A badge joined with its template and issuer, and the organization that issued it on the issuer's behalf. */
export const BADGE_FROM = `select ${BADGE_SELECT}, b.status_index as b__status_index, ${TEMPLATE_SELECT}, ${ORGANIZATION_SELECT},
    ${AUTHORIZED_ISSUER_SELECT}
  from badges b join badge_templates t on t.id = b.badge_template_id join organizations o on o.id = b.organization_id
    left join organizations ai on ai.id = b.issued_by_organization_id`;

export const BADGES_COUNT = "(select count(*) from badges c where c.badge_template_id = t.id)::int as badges_count";

/** A template joined with its owner; `withCount` adds `badges_count`. */
export const templateFrom = (withCount: boolean): string =>
  `select ${TEMPLATE_SELECT}, ${ORGANIZATION_SELECT}${withCount ? `, ${BADGES_COUNT}` : ""}
  from badge_templates t join organizations o on o.id = t.organization_id`;

/** `%text%` for ILIKE, with the pattern characters of `text` taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
