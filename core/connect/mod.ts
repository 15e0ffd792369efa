export type { ApproveDeps, AuthorizeCheck, AuthorizeErrorCode, AuthorizeRequest } from "./authorize.ts";
export {
  approveAuthorization,
  authorizeError,
  CODE_LIFETIME_SECONDS,
  checkAuthorizeRequest,
  grantCovers,
  redirectWith,
} from "./authorize.ts";
export type {
  CodeRecord,
  ConnectStore,
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
export type { ConnectTokenDeps, UserCaller, UserTokenResponse } from "./tokens.ts";
export { exchangeUserGrant, REFRESH_TOKEN_LIFETIME_SECONDS, userCaller } from "./tokens.ts";
