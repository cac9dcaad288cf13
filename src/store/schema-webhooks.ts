// Outbound webhooks' tables (migration 100, src/outbound-webhooks/): endpoints, the events
// written in the transaction of their change, and each event's delivery to each endpoint.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTimestamp, Timestamp } from './columns.ts';

export interface OutboundEndpointsTable {
  id: string;
  org_id: string;
  seq: Generated<string>;
  url: string;
  description: string | null;
  events: string[];
  sealed_secrets: string;
  previous_until: NullableTimestamp;
  disabled: Generated<boolean>;
  disabled_reason: string | null;
  failing_since: NullableTimestamp;
  last_success_at: NullableTimestamp;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface OutboundEventsTable {
  id: string;
  org_id: string;
  type: string;
  body: string;
  created_at: CreatedAt;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

/** One try of a delivery, as `GET …/deliveries` shows it. */
export interface DeliveryAttempt {
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  responseBody?: string;
}

export interface OutboundDeliveriesTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  state: Generated<DeliveryState>;
  attempt_count: Generated<number>;
  attempts: ColumnType<DeliveryAttempt[], string | undefined, string>;
  next_attempt_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  lease_token: string | null;
  created_at: CreatedAt;
}

export type OutboundEndpointRow = Selectable<OutboundEndpointsTable>;
export type OutboundDeliveryRow = Selectable<OutboundDeliveriesTable>;
