// An outbound webhook endpoint and a delivery as the API answers them (never the sealed secrets):
// the one place their rows become resources.
import type { DeliveryAttempt, DeliveryState, OutboundDeliveryRow, OutboundEndpointRow } from '../store/schema.ts';

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  description: string | null;
  events: string[];
  disabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** An endpoint just created: the resource and its signing secret, shown this once. */
export type CreatedWebhookEndpoint = WebhookEndpoint & { secret: string };

/** The answer to a rotation: the new secret (shown once), and until when the old one still signs. */
export interface RotatedSecret {
  secret: string;
  previousSecretExpiresAt: string;
}

export interface WebhookDelivery {
  deliveryId: string;
  eventId: string;
  type: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

export function toEndpoint(e: OutboundEndpointRow): WebhookEndpoint {
  return {
    endpointId: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    disabled: e.disabled,
    disabledReason: e.disabled_reason,
    previousSecretExpiresAt: e.previous_until?.toISOString() ?? null,
    version: e.version,
    createdAt: e.created_at.toISOString(),
    updatedAt: e.updated_at.toISOString(),
  };
}

export function toDelivery(d: OutboundDeliveryRow): WebhookDelivery {
  return {
    deliveryId: d.id,
    eventId: d.event_id,
    type: d.type,
    state: d.state,
    attempts: d.attempts,
    // A pending delivery with no retry time is due now (it waits for a free slot of its endpoint).
    nextAttemptAt: d.state === 'pending' ? (d.next_attempt_at ?? d.created_at).toISOString() : null,
    createdAt: d.created_at.toISOString(),
  };
}
