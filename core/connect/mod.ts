export type {
  ApproveDeps,
  AuthorizeCheck,
  AuthorizeErrorCode,
  AuthorizeRequest,
  GrantTo,
  RedirectingClient,
} from "./authorize.ts";
export {
  applicationGrant,
  approveAuthorization,
  authorizeError,
  CODE_LIFETIME_SECONDS,
  checkAuthorizeRequest,
  checkClientAuthorizeRequest,
  grantCovers,
  redirectWith,
} from "./authorize.ts";
export type {
  CodeRecord,
  ConnectStore,
  GrantClient,
  GrantListing,
  GrantRecord,
  RefreshTokenRecord,
  SessionRecord,
} from "./ports.ts";
export type { BadgeVisibility, MergeConnections, RetemplatedBadge } from "./public_badges.ts";
export {
  mergeConnectEvents,
  publicBadgesEventFor,
  publicBadgesEvents,
  templateChangeEvents,
  visibleToConnected,
} from "./public_badges.ts";
export { removeAccess } from "./remove.ts";
export type {
  ConnectClient,
  ConnectTokenDeps,
  GrantCaller,
  RevocationRequest,
  UserCaller,
  UserTokenResponse,
} from "./tokens.ts";
export {
  applicationClient,
  exchangeUserGrant,
  grantCaller,
  grantedTo,
  REFRESH_TOKEN_LIFETIME_SECONDS,
  revokeUserToken,
  userCaller,
} from "./tokens.ts";
