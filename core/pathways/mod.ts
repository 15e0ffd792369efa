export { Pathway, PathwayEarner, pathwayEarnerJson, pathwayJson } from "./json.ts";
export type { CompleteHeld } from "./pathways.ts";
export {
  archivePathway,
  checkTransition,
  createPathway,
  deletePathway,
  getPathway,
  listPathways,
  newPathway,
  normalizeMilestones,
  pathwayEarners,
  pathwayErrors,
  publishPathway,
  updatedPathway,
  updatePathway,
} from "./pathways.ts";
export type { MilestoneProgress, PathwayProgress } from "./progress.ts";
export { countsFor, milestoneTemplateIds, nextMilestone, pathwayProgress } from "./progress.ts";
export type {
  AccountPathwayRow,
  EarnerListQuery,
  HeldRow,
  Milestone,
  PathwayListQuery,
  PathwayProgressRecord,
  PathwayRecord,
  PathwayShown,
  PathwayState,
  PathwayStore,
  PathwayTemplateFacts,
  PathwayTemplateRef,
  PathwayTx,
} from "./records.ts";
export {
  CreatePathwayInput,
  EARNER_LIST,
  MILESTONE_TEMPLATES_MAX,
  MILESTONES_MAX,
  MilestoneInput,
  PATHWAY_LIST,
  PATHWAY_STATES,
  PROGRESS_STATES,
  UpdatePathwayInput,
} from "./records.ts";
export type { MilestoneView, PathwayPageView, WalletMilestone, WalletPathway } from "./views.ts";
export { ORGANIZATION_PATHWAYS_MAX, organizationPathways, publicPathway, walletPathways } from "./views.ts";
