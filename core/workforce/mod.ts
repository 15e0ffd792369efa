export type { WorkforceAuthorizationStore, WorkforceDeps } from "./employment_events.ts";
export {
  employmentEventErrors,
  employmentEventRecord,
  RecordEmploymentEventInput,
  recordEmploymentEvent,
  setWorkforceAuthorization,
} from "./employment_events.ts";
