// The SMTP gateway's refusals and failures across organisations (docs/gateway.md).
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useApp } from '../../shared/app-context.tsx';
import { largestPage } from '../../shared/api/field-limits.ts';

/** Filters as the page keeps them: an org id, and UTC dates (YYYY-MM-DD, inclusive). */
export function useGatewayErrors(filter: { orgId?: string | undefined; from?: string | undefined; to?: string | undefined }) {
  const { api } = useApp();
  const query = {
    limit: largestPage('listGatewayErrors'),
    ...(filter.orgId ? { orgId: filter.orgId } : {}),
    ...(filter.from ? { from: `${filter.from}T00:00:00.000Z` } : {}),
    ...(filter.to ? { to: new Date(Date.parse(`${filter.to}T00:00:00.000Z`) + 86_400_000).toISOString() } : {}),
  };
  return useQuery(['gateway-errors', query], () => call(api.GET('/v1/admin/gateway-errors', { params: { query } })));
}
