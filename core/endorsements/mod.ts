export {
  Endorsement,
  endorsedSubjectId,
  endorsementCredentialPayload,
  endorsementJson,
  endorsementUrl,
} from "./credential.ts";
export { changeEndorsement, createEndorsement, getEndorsement, listEndorsements } from "./endorsements.ts";
export { EndorsementEventDetailSchema, endorsementEvent } from "./events.ts";
export type {
  EndorsementDeps,
  EndorsementRecord,
  EndorsementSide,
  EndorsementState,
  EndorsementStore,
  EndorsementTarget,
  EndorsementTx,
  EndorsementView,
} from "./records.ts";
export {
  COMMENT_MAX,
  CreateEndorsementInput,
  ENDORSEMENT_STATES,
  ENDORSEMENT_TARGETS,
  LIVE_STATES,
} from "./records.ts";
export type { EndorsementAction } from "./rules.ts";
export { ACTION_SIDE, mayEndorse, TRANSITIONS, transition } from "./rules.ts";
