// The staff app's reads that more than one of its sections makes: payment events (the events
// page, an org's events card) and the staff (the staff page, the names in the staff audit).
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import type { QueryOf } from '../../shared/api/resources.ts';
import { useApp } from '../../shared/app-context.tsx';

export function useEventList(query: QueryOf<'listWebhookEvents'>) {
  const { api } = useApp();
  return useQuery(['events', query], () => call(api.GET('/v1/admin/webhook-events', { params: { query } })));
}

export function useStaffList(query: QueryOf<'listStaff'>) {
  const { api } = useApp();
  return useQuery(['staff', query], () => call(api.GET('/v1/admin/staff', { params: { query } })));
}
