// The webhooks feature's reads and writes, under ['webhooks', orgId, …]: the org's endpoints, one
// endpoint's deliveries, and the actions on them (docs/webhooks.md).
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import type { QueryOf } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { operations } from '../../shared/api/types.ts';

type CreateBody = operations['createWebhookEndpoint']['requestBody']['content']['application/json'];
export type EventType = CreateBody['events'][number];

/** The event types an endpoint may subscribe to, and what each means (docs/webhooks.md, "Events"). */
export const EVENT_TYPES: { type: EventType; what: string }[] = [
  { type: 'signature.rendered', what: 'signatures were served (render, add-in, push): an event each, counted beyond ten a second' },
  { type: 'audit.event', what: 'every audit log entry' },
  { type: 'user.created', what: 'a user was added' },
  { type: 'user.updated', what: 'a user changed' },
  { type: 'user.deleted', what: 'a user was deleted' },
  { type: 'template.created', what: 'a template was added' },
  { type: 'template.updated', what: 'a template changed' },
  { type: 'template.deleted', what: 'a template was deleted' },
  { type: 'deployment.failed', what: 'a push to a mailbox was refused' },
  { type: 'org.subscription_status_changed', what: 'the subscription status changed' },
  { type: 'campaign.started', what: 'a campaign started (its banner shows)' },
  { type: 'campaign.ended', what: 'a campaign ended' },
];

export function useEndpoints(query: QueryOf<'listWebhookEndpoints'>) {
  const { api, orgId } = useOrg();
  return useQuery(['webhooks', orgId, 'list', query], () => call(api.GET('/v1/orgs/{orgId}/webhook-endpoints', { params: { path: { orgId }, query } })));
}

export function useDeliveries(endpointId: string | undefined, query: QueryOf<'listWebhookDeliveries'>) {
  const { api, orgId } = useOrg();
  return useQuery(
    ['webhooks', orgId, 'deliveries', endpointId ?? '', query],
    () => call(api.GET('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/deliveries', { params: { path: { orgId, endpointId: endpointId! }, query } })),
    { enabled: endpointId !== undefined },
  );
}

export function useWebhookActions() {
  const { api, orgId } = useOrg();
  const path = (endpointId: string) => ({ params: { path: { orgId, endpointId } } });
  const refresh = () => invalidate(['webhooks', orgId]);
  return {
    refresh,
    /** Adds an endpoint; the answer carries its secret, shown once. */
    async create(body: CreateBody) {
      const created = await call(api.POST('/v1/orgs/{orgId}/webhook-endpoints', { params: { path: { orgId } }, body }));
      await refresh();
      return created;
    },
    async setDisabled(endpointId: string, version: number, disabled: boolean) {
      await call(api.PATCH('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}', { ...path(endpointId), body: { version, disabled } }));
      await refresh();
    },
    async remove(endpointId: string) {
      await call(api.DELETE('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}', path(endpointId)));
      await refresh();
    },
    /** A new secret, shown once; the old one keeps signing for 24 hours. */
    async rotate(endpointId: string) {
      const rotated = await call(api.POST('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/rotate-secret', path(endpointId)));
      await refresh();
      return rotated;
    },
    async sendTest(endpointId: string) {
      await call(api.POST('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/test', path(endpointId)));
      await refresh();
    },
    async retry(endpointId: string, deliveryId: string) {
      await call(
        api.POST('/v1/orgs/{orgId}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', { params: { path: { orgId, endpointId, deliveryId } } }),
      );
      await refresh();
    },
  };
}
