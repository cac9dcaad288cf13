// The staff audit's reads: the log with its filters, and the staff's addresses to name its actors.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import type { QueryOf } from '../../shared/api/resources.ts';
import { useApp } from '../../shared/app-context.tsx';
import { useStaffList } from '../lib/api.ts';
import { largestPage } from '../../shared/api/field-limits.ts';

export function useStaffAudit(query: QueryOf<'listStaffAudit'>) {
  const { api } = useApp();
  return useQuery(['staff-audit', query], () => call(api.GET('/v1/admin/audit', { params: { query } })));
}

/** A staff member's address by id (one largest page covers any real team; else the id's start). */
export function useStaffEmails(): (userId: string) => string {
  const staff = useStaffList({ limit: largestPage('listStaff') });
  return (id) => staff.data?.items.find((s) => s.userId === id)?.email ?? id.slice(0, 8);
}
