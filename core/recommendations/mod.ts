export { Recommendation, recommendationJson } from "./json.ts";
export type { RecommendationDeps } from "./recommendations.ts";
export {
  createRecommendations,
  deleteRecommendation,
  dismissRecommendation,
  getRecommendation,
  listRecommendations,
  walletRecommendations,
} from "./recommendations.ts";
export type {
  RecommendationListQuery,
  RecommendationRecord,
  RecommendationState,
  RecommendationStore,
  RecommendationTargets,
  RecommendationTx,
  RecommendationView,
} from "./records.ts";
export {
  BATCH_MAX,
  CreateRecommendationsInput,
  MESSAGE_MAX,
  RECOMMENDATION_LIST,
  RECOMMENDATION_STATES,
  RecommendationInput,
  recommendationState,
} from "./records.ts";
