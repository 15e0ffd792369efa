import type { Credential } from "../../../core/auth/mod.ts";
import type {
  AuthorizationTokenStore,
  OAuthApplicationStore,
  OrganizationStore,
  RevocationBroadcast,
  SecretBox,
} from "../../../core/credentials/mod.ts";
import type { EventStore } from "../../../core/events/mod.ts";
import type { MemberAction, Role } from "../../../core/members/mod.ts";
import type {
  Cidr,
  DeliveryAdminStore,
  DeliveryTargets,
  WebhookCrypto,
  WebhookSettingsStore,
} from "../../../core/webhooks/mod.ts";

/** The signed-in account's place in one organization, as core's membership rules see it. */
export interface ConsoleMember {
  organizationId: string;
  organizationName: string;
  role: Role;
  /** The credential the member acts with in credential use cases: their role's ceiling. */
  credential: Credential;
  allowed(action: MemberAction): boolean;
}

/** What the app hands the console pages: the same stores and use-case parts REST and tRPC use. */
export interface ConsoleDeps {
  /** The account's membership of the organization, or null. */
  membership(accountId: string, organizationId: string): Promise<ConsoleMember | null>;
  /** The organizations the account belongs to, with its role in each. */
  organizationsOf(accountId: string): Promise<Array<{ id: string; name: string; role: Role }>>;
  organizations: Pick<OrganizationStore, "get">;
  apps: OAuthApplicationStore;
  tokens: AuthorizationTokenStore;
  secrets: SecretBox;
  revocations: RevocationBroadcast;
  newId(): string;
  webhooks: {
    settings: WebhookSettingsStore;
    targets: DeliveryTargets;
    deliveries: DeliveryAdminStore;
    events: Pick<EventStore, "get">;
    crypto: Pick<WebhookCrypto, "newKey">;
    allowedNetworks: readonly Cidr[];
    /** Workers drop the delivery settings they cached for the organization. */
    onSettingsChanged?: (organizationId: string) => Promise<void>;
  };
}
