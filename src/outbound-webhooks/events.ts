// The outbox of outbound webhooks: events are written in the transaction of the change that causes
// them (so an event exists exactly when its change committed), with one delivery per endpoint that
// subscribes to them, and a drain job per such endpoint (delivery.ts). Only events some live,
// enabled endpoint of the org subscribes to are written at all.
//
// Most events come from the audit trail, written in one place (src/audit/record.ts): every entry
// is an `audit.event`, and the entries of user, template and billing changes also make the
// resource's own event (`user.created`, `template.updated`, `org.subscription_status_changed`…),
// read in the same transaction. `signature.rendered` comes from rendered.ts, in batches;
// `campaign.started|ended` from src/campaigns/announce.ts, when the clock passes a campaign's times.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import type { AuditRow } from '../store/schema.ts';
import { toAuditEntry } from '../audit/resource.ts';
import { toUser } from '../users/module.ts';
import { toTemplate } from '../templates/module.ts';
import { outboundRepo } from '../store/repositories/outbound-webhooks.ts';
import { enqueue } from '../jobs/queue.ts';
import { deploymentsRepo, type DeploymentWrite } from '../store/repositories/deployments.ts';

export const EVENT_TYPES = [
  'signature.rendered',
  'audit.event',
  'user.created',
  'user.updated',
  'user.deleted',
  'template.created',
  'template.updated',
  'template.deleted',
  'deployment.failed',
  'org.subscription_status_changed',
  'campaign.started',
  'campaign.ended',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The type of the "send test event" action's event (sent to one endpoint, whatever it subscribes to). */
export const TEST_EVENT_TYPE = 'webhook.test';

/** The job kind that delivers an endpoint's due deliveries (delivery.ts). */
export const DRAIN_KIND = 'webhook.drain';

export interface OutboundEvent {
  orgId: string;
  type: string;
  data: unknown;
  at: Date;
}

/** Standard Webhooks' `webhook-id`: names the event, the same on every retry of it. */
export const newEventId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/** The exact body sent and signed: `{type, timestamp, data}`. */
export const bodyOf = (e: OutboundEvent) => JSON.stringify({ type: e.type, timestamp: e.at.toISOString(), data: e.data });

/** Starts (or joins a queued) drain of each endpoint: in the caller's transaction, like the deliveries. */
export async function queueDrains(db: Db, endpoints: { endpointId: string; orgId: string }[]): Promise<void> {
  for (const { endpointId, orgId } of endpoints) {
    await enqueue(db, { kind: DRAIN_KIND, orgId, payload: { endpointId }, dedupeKey: `now:${endpointId}` });
  }
}

/** Writes events (in the caller's transaction, if it passes one) for the endpoints that subscribe to them. */
export async function emitEvents(db: Db, events: OutboundEvent[]): Promise<void> {
  const rows = events.map((e) => ({ id: newEventId(), orgId: e.orgId, type: e.type, body: bodyOf(e) }));
  await queueDrains(db, await outboundRepo.emit(db, rows));
}

const RESOURCE_EVENTS: Record<string, { type: EventType; kind: 'user' | 'template' }> = {
  'user.create': { type: 'user.created', kind: 'user' },
  'user.update': { type: 'user.updated', kind: 'user' },
  'user.delete': { type: 'user.deleted', kind: 'user' },
  'template.create': { type: 'template.created', kind: 'template' },
  'template.update': { type: 'template.updated', kind: 'template' },
  'template.delete': { type: 'template.deleted', kind: 'template' },
};

async function resourceEvent(db: Db, orgId: string, row: AuditRow, wanted: Set<string>): Promise<OutboundEvent | undefined> {
  const at = row.at;
  const correlationId = row.correlation_id;
  const resource = RESOURCE_EVENTS[row.action];
  if (resource && wanted.has(resource.type) && row.target_id) {
    if (resource.kind === 'user') {
      const user = await outboundRepo.userRow(db, orgId, row.target_id);
      return user && { orgId, type: resource.type, at, data: { ...toUser(user), correlationId } };
    }
    const template = await outboundRepo.templateRow(db, orgId, row.target_id);
    return template && { orgId, type: resource.type, at, data: { ...toTemplate(template), correlationId } };
  }
  // Billing entries name the fields the payment event changed (billing/apply.ts).
  if (row.action.startsWith('billing.') && row.changes.includes('subscriptionStatus') && wanted.has('org.subscription_status_changed')) {
    const status = await outboundRepo.subscriptionStatus(db, orgId);
    return { orgId, type: 'org.subscription_status_changed', at, data: { orgId, subscriptionStatus: status ?? null, correlationId } };
  }
  return undefined;
}

/**
 * The events of audit entries just written (audit/record.ts), in their transaction. An org with no
 * subscribed endpoint costs one indexed query.
 */
export async function emitForAudit(db: Db, rows: AuditRow[]): Promise<void> {
  const events: OutboundEvent[] = [];
  for (const orgId of new Set(rows.flatMap((r) => (r.org_id ? [r.org_id] : [])))) {
    const wanted = await outboundRepo.subscribedTypes(db, orgId);
    if (wanted.size === 0) continue;
    for (const row of rows) {
      if (row.org_id !== orgId) continue;
      if (wanted.has('audit.event')) events.push({ orgId, type: 'audit.event', at: row.at, data: toAuditEntry(row) });
      const own = await resourceEvent(db, orgId, row, wanted);
      if (own) events.push(own);
    }
  }
  if (events.length > 0) await emitEvents(db, events);
}

/**
 * A user's deployment that failed (a push refused by the mailbox provider): the row and its
 * `deployment.failed` event in one transaction.
 */
export async function recordFailedDeployment(db: Db, write: DeploymentWrite, at: Date): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await deploymentsRepo.record(tx, write);
    await emitEvents(tx, [
      {
        orgId: write.orgId,
        type: 'deployment.failed',
        at,
        data: { userId: write.userId, target: write.target, error: write.error ?? null, correlationId: null },
      },
    ]);
  });
}
