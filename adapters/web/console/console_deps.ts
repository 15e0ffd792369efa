import type { FastifyReply, FastifyRequest } from "fastify";
import type { AuditBy, AuditLog } from "../../../core/audit/mod.ts";
import type { Credential } from "../../../core/auth/mod.ts";
import type {
  AuthorizationTokenStore,
  OAuthApplicationStore,
  OrganizationStore,
  RevocationBroadcast,
  SecretBox,
} from "../../../core/credentials/mod.ts";
import type { EventStore } from "../../../core/events/mod.ts";
import type { ImportStore } from "../../../core/imports/mod.ts";
import type { IssuerAuthorizationStore } from "../../../core/issuer_authorizations/mod.ts";
import type { BadgeActivityStore, BadgeCounters, BadgeFigures, IssuingDeps } from "../../../core/issuing/mod.ts";
import type { MemberAction, MemberActor, MemberDeps, OrganizationSignup, Role } from "../../../core/members/mod.ts";
import type { PathwayStore } from "../../../core/pathways/mod.ts";
import type { EmployeeStore } from "../../../core/workforce/mod.ts";
import type { WebhookAdminDeps } from "../../trpc/mod.ts";
import type { ConsoleEndorsementDeps } from "./routes_endorsements.ts";

/** The signed-in account's place in one organization, as core's membership rules see it. */
export interface ConsoleMember {
  organizationId: string;
  organizationName: string;
  role: Role;
  /** The credential the member acts with in credential use cases: their role's ceiling. */
  credential: Credential;
  allowed(action: MemberAction): boolean;
  /** Who the member use cases see acting. */
  actor: MemberActor;
  /** Who the audit log names for a change the member makes from `clientAddress`. */
  by(clientAddress: string | null): AuditBy;
}

/**
 * A console page of the member's organization answered with `status`; `Shows` is what the page
 * shows besides (a refusal, the form as sent...).
 */
export type MemberPage<Shows extends unknown[] = []> = (
  request: FastifyRequest,
  reply: FastifyReply,
  member: ConsoleMember,
  status: number,
  ...shows: Shows
) => Promise<FastifyReply>;

/** What the app hands the console pages: the same stores and use-case parts REST and tRPC use. */
export interface ConsoleDeps {
  /** The account's membership of the organization, or null. */
  membership(accountId: string, organizationId: string): Promise<ConsoleMember | null>;
  /** The organizations the account belongs to, with its role in each. */
  organizationsOf(accountId: string): Promise<Array<{ id: string; name: string; role: Role }>>;
  organizations: Pick<OrganizationStore, "get">;
  /** Uploaded images, stored by the SHA-256 of their bytes. */
  images: {
    store: {
      put(sha256: string, contentType: string, bytes: Uint8Array, now: Date): Promise<void>;
      get(sha256: string): Promise<{ contentType: string; bytes: Buffer } | null>;
    };
    /** Hex SHA-256 of the bytes. */
    sha256(bytes: Uint8Array): string;
  };
  /** Badge templates: the issuing use cases' own dependencies, as REST has them. */
  templates: IssuingDeps;
  /** The organization's profile changed: cached issuer records and pages are dropped. */
  onOrganizationChanged?: (organizationId: string) => void;
  /** Memberships and invitations: core's member use cases and their store. */
  members: MemberDeps;
  audit: Pick<AuditLog, "page">;
  /** CSV imports of badges and employee records (the worker processes work them). */
  imports: ImportStore;
  /** `MAIL_PER_ORGANIZATION_PER_HOUR`: an import's check says how many of its badges would go without their mail. */
  mailPerOrganizationPerHour: number;
  /** `ORGANIZATION_SIGNUP`: whether a signed-in account may create an organization here. */
  signup: OrganizationSignup;
  apps: OAuthApplicationStore;
  tokens: AuthorizationTokenStore;
  secrets: SecretBox;
  revocations: RevocationBroadcast;
  newId(): string;
  /** The webhook parts the internal tools reach, the same ones. */
  webhooks: Omit<WebhookAdminDeps, "onRedeliver">;
  /** Issuing, badges and the dashboard: the issuing use cases' parts, as REST has them. */
  badges: {
    issuing: IssuingDeps;
    /** UUIDv7s for badges and events, and the OBI recipient salt. */
    ids: { newId(): string; newEventId(): string; newSalt(): string };
    /** The dashboard's counters, kept as badges change. */
    counters: BadgeCounters;
    /** The figures page's aggregates (acceptance, time to accept, per template and week), read from the badges. */
    figures: BadgeFigures;
    /** A badge's events and its notification mails. */
    activity: BadgeActivityStore;
    events: Pick<EventStore, "list">;
  };
  /** Employee records, as `/organizations/<org>/employees` reads them. */
  employees: EmployeeStore;
  /** Endorsements given and received; absent: the section is not offered. */
  endorsements?: ConsoleEndorsementDeps;
  /** Pathways, as `/organizations/<org>/pathways` keeps them; absent: the section is not offered. */
  pathways?: PathwayStore;
  /** Authorized issuers, both sides; absent: the section is not offered and the issue form offers only the organization's own templates. */
  issuerAuthorizations?: IssuerAuthorizationStore;
}
