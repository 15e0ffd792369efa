import { type Static, Type } from "typebox";
import type { AuditRecord } from "../audit/mod.ts";
import type { PageRequest } from "../shared/mod.ts";

/**
 * An authorization of one organization (the issuer) to issue badge templates of another (the
 * grantor) on its behalf. The grantor grants it (`pending`), the issuer accepts it (`accepted`:
 * only then may it issue); either side ends it (`ended`), after which it issues nothing more.
 */
export const AUTHORIZATION_STATES = ["pending", "accepted", "ended"] as const;
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

/** The states in which an authorization still counts: a grantor has at most one of these per issuer. */
export const LIVE_AUTHORIZATION_STATES: readonly AuthorizationState[] = ["pending", "accepted"];

/** How many templates one authorization may name (more: authorize them all). */
export const TEMPLATES_MAX = 100;

/** Which side of an authorization an organization is. */
export type AuthorizationSide = "grantor" | "issuer";

export interface IssuerAuthorizationRecord {
  id: string;
  grantor_id: string;
  issuer_id: string;
  state: AuthorizationState;
  /** Every template of the grantor, those made later included; else only `badge_template_ids`. */
  all_templates: boolean;
  badge_template_ids: string[];
  created_at: Date;
  updated_at: Date;
  accepted_at: Date | null;
  ended_at: Date | null;
  /** Which side ended it; null while live. */
  ended_by: AuthorizationSide | null;
}

/** A template an authorization covers, as lists show it. */
export interface AuthorizedTemplate {
  id: string;
  name: string;
  state: string;
}

/** An authorization with the names lists and pages show, and the templates it covers now. */
export interface IssuerAuthorizationView extends IssuerAuthorizationRecord {
  grantor_name: string;
  issuer_name: string;
  /** The grantor's templates it covers (every one of them when `all_templates`), by name. */
  badge_templates: AuthorizedTemplate[];
}

/** One transaction over authorizations and the audit rows of each change. */
export interface IssuerAuthorizationTx {
  /** The authorization, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<IssuerAuthorizationRecord | null>;
  /** Inserts it unless the grantor has a live one for the same issuer; false then. */
  insertIfNoneLive(record: IssuerAuthorizationRecord): Promise<boolean>;
  update(record: IssuerAuthorizationRecord): Promise<void>;
  appendAudit(entries: readonly AuditRecord[]): Promise<void>;
}

export interface IssuerAuthorizationStore {
  transaction<T>(work: (tx: IssuerAuthorizationTx) => Promise<T>): Promise<T>;
  get(id: string): Promise<IssuerAuthorizationView | null>;
  /** The authorizations `organizationId` granted (`grantor`) or received (`issuer`), newest first; ended ones too. */
  list(
    organizationId: string,
    side: AuthorizationSide,
    page: PageRequest,
    options?: { liveOnly?: boolean },
  ): Promise<{ items: IssuerAuthorizationView[]; total: number }>;
  organizationExists(id: string): Promise<boolean>;
  /** Which of `ids` are not templates of `organizationId`. */
  foreignTemplates(organizationId: string, ids: readonly string[]): Promise<string[]>;
}

export const GrantIssuerInput = Type.Object(
  {
    issuer_organization_id: Type.String({
      format: "uuid",
      description: "The organization authorized to issue on this organization's behalf",
    }),
    badge_template_ids: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ format: "uuid" }), { minItems: 1, maxItems: TEMPLATES_MAX, uniqueItems: true }),
          Type.Null(),
        ],
        {
          description:
            "The templates it may issue (1 to 100, each this organization's); absent or null: every template of this organization, those made later included",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type GrantIssuerInput = Static<typeof GrantIssuerInput>;
