// Managing an org's outbound webhook endpoints (docs/webhooks.md): each write audited in its
// transaction; secrets made here, shown once, stored sealed (signing.ts).
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { WriteContext } from '../audit/record.ts';
import { recordAudit, changedFields } from '../audit/record.ts';
import { outboundRepo, type EndpointPatch } from '../store/repositories/outbound-webhooks.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { decodeCursor, toPage, type PageRequest } from '../store/pagination.ts';
import { badRequest, conflict, notFound } from '../kernel/errors.ts';
import { newEventId, bodyOf, queueDrains, TEST_EVENT_TYPE } from './events.ts';
import { newSecret, openSecrets, rotated, sealSecrets } from './signing.ts';
import { resolveTarget, TargetRefused } from './target.ts';
import { toDelivery, toEndpoint, type CreatedWebhookEndpoint, type RotatedSecret, type WebhookDelivery, type WebhookEndpoint } from './resource.ts';
import type { Page } from '../store/pagination.ts';

/** How long the secret a rotation replaced keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function createOutboundWebhookService(deps: { db: Db; clock: Clock; secrets: SecretBox; invalidate: Invalidate; allowPrivate: boolean }) {
  const { db, clock, secrets, invalidate } = deps;

  async function checkUrl(url: string): Promise<void> {
    try {
      await resolveTarget(url, deps.allowPrivate);
    } catch (err) {
      if (err instanceof TargetRefused) throw badRequest(`body.url: ${err.message}`, { field: 'body.url' });
      throw err;
    }
  }

  async function endpoint(orgId: string, endpointId: string) {
    const row = await outboundRepo.findEndpoint(db, orgId, endpointId);
    if (!row) throw notFound('Webhook endpoint');
    return row;
  }

  return {
    async create(ctx: WriteContext, input: { url: string; events: string[]; description?: string | undefined }): Promise<CreatedWebhookEndpoint> {
      await checkUrl(input.url);
      const secret = newSecret();
      const id = randomUUID();
      const sealed = sealSecrets(secrets, ctx.orgId, { current: secret, previous: [] });
      const row = await db.transaction().execute(async (tx) => {
        const row = await outboundRepo.insertEndpoint(tx, {
          id,
          orgId: ctx.orgId,
          url: input.url,
          description: input.description ?? null,
          events: input.events,
          sealedSecrets: sealed,
        });
        await recordAudit(tx, ctx, { action: 'webhookEndpoint.create', targetId: id, changes: changedFields(input) });
        return row;
      });
      invalidate.webhookEndpointsChanged(ctx.orgId);
      return { ...toEndpoint(row), secret };
    },

    async list(orgId: string, page: PageRequest): Promise<Page<WebhookEndpoint>> {
      const rows = await outboundRepo.listEndpoints(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toEndpoint);
    },

    async get(orgId: string, endpointId: string): Promise<WebhookEndpoint> {
      return toEndpoint(await endpoint(orgId, endpointId));
    },

    async update(ctx: WriteContext, endpointId: string, check: VersionCheck, patch: EndpointPatch): Promise<WebhookEndpoint> {
      if (patch.url !== undefined) await checkUrl(patch.url);
      const row = await db.transaction().execute(async (tx) => {
        const updated = await outboundRepo.updateEndpoint(tx, ctx.orgId, endpointId, check, patch);
        if (!updated) throw versionMismatch('Webhook endpoint', await outboundRepo.findEndpoint(tx, ctx.orgId, endpointId), check);
        await recordAudit(tx, ctx, { action: 'webhookEndpoint.update', targetId: endpointId, changes: changedFields(patch) });
        // Enabled again: what waited for it is sent.
        if (patch.disabled === false) await queueDrains(tx, [{ endpointId, orgId: ctx.orgId }]);
        return updated;
      });
      invalidate.webhookEndpointsChanged(ctx.orgId);
      return toEndpoint(row);
    },

    async remove(ctx: WriteContext, endpointId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (!(await outboundRepo.softDelete(tx, ctx.orgId, endpointId))) throw notFound('Webhook endpoint');
        await recordAudit(tx, ctx, { action: 'webhookEndpoint.delete', targetId: endpointId, changes: ['deletedAt'] });
      });
      invalidate.webhookEndpointsChanged(ctx.orgId);
    },

    /**
     * A new secret; the one it replaces keeps signing beside it for ROTATION_OVERLAP_MS, and so do
     * those earlier rotations replaced within that time (signing.ts keeps at most ten).
     */
    async rotate(ctx: WriteContext, endpointId: string): Promise<RotatedSecret> {
      const at = clock();
      const secret = newSecret();
      const row = await db.transaction().execute(async (tx) => {
        // Read under the row's lock: two rotations at once each keep the other's secret signing.
        const current = await outboundRepo.findEndpoint(tx, ctx.orgId, endpointId, { lock: true });
        if (!current) throw notFound('Webhook endpoint');
        const old = openSecrets(secrets, ctx.orgId, current.sealed_secrets, current.previous_until);
        const sealed = sealSecrets(secrets, ctx.orgId, rotated(old, secret, at, ROTATION_OVERLAP_MS));
        const row = await outboundRepo.setSecrets(tx, ctx.orgId, endpointId, sealed, new Date(at.getTime() + ROTATION_OVERLAP_MS));
        if (!row) throw notFound('Webhook endpoint');
        await recordAudit(tx, ctx, { action: 'webhookEndpoint.rotateSecret', targetId: endpointId, changes: ['secret'] });
        return row;
      });
      return { secret, previousSecretExpiresAt: (row.previous_until ?? at).toISOString() };
    },

    async deliveries(orgId: string, endpointId: string, page: PageRequest): Promise<Page<WebhookDelivery>> {
      // The cursor is checked before the endpoint is looked up: a malformed one is a 400 whatever the path.
      const after = decodeCursor(page.cursor);
      await endpoint(orgId, endpointId);
      const rows = await outboundRepo.listDeliveries(db, orgId, endpointId, after, page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toDelivery);
    },

    /** Sends a delivery again now (its event, with the same `webhook-id`). */
    async retry(ctx: WriteContext, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
      if (!(await outboundRepo.findDelivery(db, ctx.orgId, endpointId, deliveryId))) throw notFound('Delivery');
      // As the test event: a disabled endpoint is sent nothing, so its delivery is not queued as if it were.
      if ((await endpoint(ctx.orgId, endpointId)).disabled) throw conflict('This endpoint is disabled: enable it to send its deliveries again.');
      return db.transaction().execute(async (tx) => {
        const row = await outboundRepo.requeue(tx, ctx.orgId, endpointId, deliveryId);
        if (!row) {
          if (!(await outboundRepo.findDelivery(tx, ctx.orgId, endpointId, deliveryId))) throw notFound('Delivery');
          throw conflict('This delivery is being sent right now; retry it once the attempt is recorded.');
        }
        await recordAudit(tx, ctx, { action: 'webhookDelivery.retry', targetId: deliveryId, changes: ['state'] });
        await queueDrains(tx, [{ endpointId, orgId: ctx.orgId }]);
        return toDelivery(row);
      });
    },

    /** A `webhook.test` event to this endpoint alone, whatever it subscribes to. */
    async sendTest(ctx: WriteContext, endpointId: string): Promise<WebhookDelivery> {
      if ((await endpoint(ctx.orgId, endpointId)).disabled) throw conflict('This endpoint is disabled: enable it to send it events.');
      const at = clock();
      const event = {
        orgId: ctx.orgId,
        type: TEST_EVENT_TYPE,
        at,
        data: { endpointId, message: 'A test event from the dashboard or the API.', correlationId: ctx.correlationId },
      };
      return db.transaction().execute(async (tx) => {
        const row = await outboundRepo.emitTo(tx, { id: newEventId(), orgId: ctx.orgId, type: event.type, body: bodyOf(event) }, endpointId);
        await queueDrains(tx, [{ endpointId, orgId: ctx.orgId }]);
        return toDelivery(row);
      });
    },
  };
}

export type OutboundWebhookService = ReturnType<typeof createOutboundWebhookService>;
