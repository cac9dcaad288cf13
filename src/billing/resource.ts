// A payment-provider event as the staff API answers it: the one place a webhook_events row becomes
// the resource. (The plan status is the gate's own answer, src/billing/gate.ts.)
import type { EventListRow, EventStatus } from '../store/repositories/billing.ts';
import type { WebhookEventRow } from '../store/schema.ts';
import type { EventFailureCode } from './failure.ts';

export interface WebhookEvent {
  id: string;
  type: string;
  /** pending: no org is linked to its customer yet; applied when one is. */
  status: EventStatus;
  outcome: string | null;
  /** Why it failed, for staff; the database's own error is in the service's log. */
  error: string | null;
  /** What failed, stable (src/billing/failure.ts). */
  errorCode: EventFailureCode | null;
  orgId: string | null;
  customerId: string | null;
  createdAt: string | null;
  receivedAt: string;
  attempts: number;
  correlationId: string | null;
}

/** One event with the body exactly as the provider signed it (UTF-8). */
export type WebhookEventDetail = WebhookEvent & { payload: string };

export const toWebhookEvent = (r: EventListRow): WebhookEvent => ({
  id: r.id,
  type: r.type,
  status: r.status,
  outcome: r.outcome,
  error: r.error,
  errorCode: r.error_code as EventFailureCode | null,
  orgId: r.org_id,
  customerId: r.customer_id,
  createdAt: r.created_at?.toISOString() ?? null,
  receivedAt: r.received_at.toISOString(),
  attempts: r.attempts,
  correlationId: r.correlation_id,
});

export const toWebhookEventDetail = (r: WebhookEventRow): WebhookEventDetail => ({
  ...toWebhookEvent(r),
  payload: Buffer.from(r.raw_body).toString('utf8'),
});
