export type {
  DueDelivery,
  EventMessage,
  HostedInvalidation,
  HostedInvalidations,
  Revocation,
  WebhookSettingsChange,
} from "./messages.ts";
export {
  DueDeliverySchema,
  EventMessageSchema,
  eventMessage,
  HOSTED_KINDS,
  HostedInvalidationSchema,
  HostedInvalidationsSchema,
  RevocationSchema,
  WebhookSettingsChangeSchema,
} from "./messages.ts";
