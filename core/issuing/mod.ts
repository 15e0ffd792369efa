export type { MailBudget, Mailer, MailMessage } from "../mail/mod.ts";
export {
  ACCEPT_LINK_SIGN_IN_MS,
  acceptLinkSignsIn,
  acceptTokenFromThePast,
  acceptTokenMintedAt,
  mintAcceptToken,
} from "./accept_tokens.ts";
export type { BadgeActivityStore, DeliveryStatus, QueuedNotification } from "./badge_activity.ts";
export { BADGE_EVENTS_SHOWN, badgeActivity, deliveryStatus } from "./badge_activity.ts";
export type { FeedPage } from "./badge_feed.ts";
export { feedCursor, searchIssuedBadges } from "./badge_feed.ts";
export type { BatchResult, IssuedBadge } from "./badges.ts";
export {
  completePathwayEarners,
  deleteBadge,
  earnerDecision,
  getBadge,
  issueBadge,
  issueBatch,
  issueChecked,
  listBadges,
  mailAllowedFor,
  replaceBadge,
  resendNotification,
  revokeBadge,
  setPrivacy,
} from "./badges.ts";
export type { BulkAction, BulkResult, BulkScope } from "./bulk.ts";
export { BULK_LIMIT, bulkResend, bulkRevoke, bulkTargets } from "./bulk.ts";
export type { AcceptTokens, IssuingContext, IssuingDeps } from "./context.ts";
export { eventContext } from "./context.ts";
export type { BadgeCounters, Dashboard, StateCounts, WeekCount } from "./dashboard.ts";
export { DASHBOARD_WEEKS, lastWeeks, readDashboard, weekOf } from "./dashboard.ts";
export type { UserEmail, UserJson, UserRecord } from "./earners.ts";
export { newUserRecord, UserCreateInput, UserJsonSchema, userEmailKeys, userJson } from "./earners.ts";
export type { BadgeFigures, FigureCounts, FigureRows, Figures, TemplateFigures } from "./figures.ts";
export {
  acceptanceRate,
  FIGURE_WEEKS,
  FIGURES_CSV_HEADER,
  figuresCsv,
  isoWeekOf,
  isoWeekStart,
  lastIsoWeeks,
  NO_FIGURES,
  percent,
  readFigures,
} from "./figures.ts";
export {
  notificationKind,
  PREVIEW_RECIPIENT,
  pendingBadgeContent,
  pendingBadgeMail,
  previewBadgeContent,
} from "./notifications.ts";
export type {
  BadgeChanges,
  BadgeChangeTx,
  BadgeReads,
  BadgeStore,
  BadgeTx,
  BadgeView,
  ChangeRecords,
  CompletionHolder,
  ConnectedHolders,
  Earner,
  EarnerChanges,
  IssueLookup,
  IssueWrites,
  PathwayProgressChanges,
  PathwayStep,
  TemplateChanges,
  TemplateChangeTx,
  TemplateReads,
  TemplateView,
  UncompletedStep,
} from "./ports.ts";
export {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  templateAction,
  updateTemplate,
} from "./templates.ts";
export { createUser } from "./users.ts";
