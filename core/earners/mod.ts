export {
  badgeForAcceptLink,
  badgeForPage,
  badgePrivacy,
  decideBadge,
  issuerPage,
  publicProfile,
  removeEmail,
  updateName,
  updateProfile,
  walletBadges,
} from "./account.ts";
export type { EarnerContext, EarnerDeps } from "./context.ts";
export type { EarnerExportRecord, ExportDeps, ExportState, ExportStore } from "./exports.ts";
export {
  EXPORT_LEASE_MS,
  EXPORT_LINK_TTL_MS,
  EXPORT_MAX_ATTEMPTS,
  exportExpiry,
  exportForLink,
  requestExport,
} from "./exports.ts";
export type {
  AccountMerge,
  AccountStore,
  AddressChanges,
  BadgeLinkChanges,
  EarnerAccount,
  EarnerLink,
  EarnerPageReads,
  EarnerSession,
  EarnerStore,
  EarnerTx,
  LinkChanges,
  LinkPurpose,
  SessionChanges,
  SignInStore,
} from "./ports.ts";
export type { FeedUrls } from "./public_feed.ts";
export { feedPageRequest, PublicFeed, PublicFeedBadge, publicBadgeFeed, publicFeedBadge } from "./public_feed.ts";
export type { BadgeStatus, LinkCheck, VerifyCheck } from "./rules.ts";
export {
  badgePageVisible,
  badgeStatus,
  canDecide,
  checkLink,
  idShaped,
  LINK_LIMITS,
  LINK_TTL_MS,
  linkRequestAllowed,
  onPublicProfile,
  SESSION_TTL_MS,
  safeNext,
  sessionActive,
  VANITY_PATTERN,
  validVanity,
  verifyChecks,
  walletOrder,
} from "./rules.ts";
export type { LinkRefusal, Redeemed, RedeemedLink } from "./sign_in.ts";
export {
  redeemBadgeLink,
  redeemLink,
  requestLink,
  sessionAccount,
  signOut,
  signOutEverywhere,
} from "./sign_in.ts";
