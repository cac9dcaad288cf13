// The staff: list, invite, disable, reset another's TOTP.
import { call } from '../../shared/api/client.ts';
import { invalidate } from '../../shared/api/query.ts';
import { useApp } from '../../shared/app-context.tsx';
import { useStaffList } from '../lib/api.ts';

export function useStaff(cursor: string | undefined) {
  return useStaffList({ limit: 50, ...(cursor ? { cursor } : {}) });
}

async function refresh() {
  await Promise.all([invalidate(['staff']), invalidate(['staff-audit'])]);
}

export function useStaffActions() {
  const { api } = useApp();
  return {
    async invite(body: { email: string; name: string }) {
      const member = await call(api.POST('/v1/admin/staff', { body }));
      await refresh();
      return member;
    },
    async disable(userId: string) {
      const member = await call(api.DELETE('/v1/admin/staff/{userId}', { params: { path: { userId } } }));
      await refresh();
      return member;
    },
    async resetMfa(userId: string) {
      const member = await call(api.POST('/v1/admin/staff/{userId}/mfa/reset', { params: { path: { userId } } }));
      await refresh();
      return member;
    },
  };
}
