// Payment events: the list, one event's payload, and replays (one, or every failed one).
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useApp } from '../../shared/app-context.tsx';
import { useEventList } from '../lib/api.ts';

export type EventFilters = Partial<Record<'status' | 'type' | 'orgId', string>>;

export function useEvents(filters: EventFilters, cursor: string | undefined) {
  return useEventList({
    limit: 25,
    ...(filters.status ? { status: filters.status as 'applied' | 'ignored' | 'failed' | 'pending' } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.orgId ? { orgId: filters.orgId } : {}),
    ...(cursor ? { cursor } : {}),
  });
}

export function useEvent(eventId: string | undefined) {
  const { api } = useApp();
  return useQuery(['event', eventId], () => call(api.GET('/v1/admin/webhook-events/{eventId}', { params: { path: { eventId: eventId ?? '' } } })), {
    enabled: eventId !== undefined,
  });
}

/** A replay changes events and the orgs they name: both are read again. */
async function refresh() {
  await Promise.all([invalidate(['events']), invalidate(['event']), invalidate(['orgs'])]);
}

export function useReplays() {
  const { api } = useApp();
  return {
    async one(eventId: string) {
      const result = await call(api.POST('/v1/admin/webhook-events/{eventId}/replay', { params: { path: { eventId } } }));
      await refresh();
      return result;
    },
    async allFailed() {
      const { results } = await call(api.POST('/v1/admin/webhook-events/replay'));
      await refresh();
      return results;
    },
  };
}
