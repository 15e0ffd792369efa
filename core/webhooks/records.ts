import type { AttemptOutcome, DeliveryProgress } from "./delivery.ts";
import type { EventTypeSelection } from "./subscription.ts";

/** An organization's webhook settings as stored: the signing secrets only sealed (AES-256-GCM). */
export interface WebhookSettingsRecord {
  organization_id: string;
  webhook_url: string | null;
  event_types: EventTypeSelection;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  updated_at: Date;
}

/** The event fields a delivery carries (the webhook summary is built from them). */
export interface DeliveryEvent {
  event_id: string;
  organization_id: string;
  event_type: string;
  occurred_at: Date;
}

/** One delivery of one event to the organization's webhook_url. */
export interface WebhookDeliveryRecord extends DeliveryEvent {
  id: string;
  created_at: Date;
  progress: DeliveryProgress;
}

export interface WebhookAttemptRecord {
  id: string;
  delivery_id: string;
  attempt_number: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  outcome: AttemptOutcome;
}
