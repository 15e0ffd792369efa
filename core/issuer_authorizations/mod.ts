export {
  changeIssuerAuthorization,
  getIssuerAuthorization,
  grantIssuer,
  listIssuerAuthorizations,
} from "./authorizations.ts";
export { IssuerAuthorization, issuerAuthorizationJson } from "./json.ts";
export type {
  AuthorizationSide,
  AuthorizationState,
  AuthorizedTemplate,
  IssuerAuthorizationRecord,
  IssuerAuthorizationStore,
  IssuerAuthorizationTx,
  IssuerAuthorizationView,
} from "./records.ts";
export { AUTHORIZATION_STATES, GrantIssuerInput, LIVE_AUTHORIZATION_STATES, TEMPLATES_MAX } from "./records.ts";
export type { AuthorizationAction } from "./rules.ts";
export { ACTION_SIDES, covers, mayGrant, sideOf, TRANSITIONS, transition } from "./rules.ts";
