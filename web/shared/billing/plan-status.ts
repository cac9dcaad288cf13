// The org's plan status (which cap blocks writes), read by the banner and the overview. Any 402
// invalidates it (api/client.ts), so the banner appears the moment a write is refused.
import { call } from '../api/client.ts';
import { useQuery } from '../api/query.ts';
import { useOrg } from '../app-context.tsx';
import type { PlanStatus } from '../api/types.ts';

export function usePlanStatus() {
  const { api, orgId } = useOrg();
  return useQuery(['plan-status', orgId], () => call(api.GET('/v1/orgs/{orgId}/plan-status', { params: { path: { orgId } } })));
}

export interface BannerText {
  tone: 'error' | 'warning';
  title: string;
  text: string;
}

const DAY_MS = 86_400_000;

/** What the banner says for a plan status, or nothing when all is well. */
export function bannerFor(status: PlanStatus, now = Date.now()): BannerText | undefined {
  if (status.blockedBy === 'grace_expired') {
    return {
      tone: 'error',
      title: 'Your organisation is blocked: payment is overdue',
      text: 'The grace period has ended, so changes and signature renders are refused until the subscription is paid.',
    };
  }
  if (status.blockedBy === 'seats') {
    return {
      tone: 'warning',
      title: `All seats are used (${status.seats.used} of ${status.seats.limit})`,
      text: 'New users cannot be added. Remove users who left, or buy more seats.',
    };
  }
  if (status.gracePeriodEndsAt) {
    const days = Math.max(0, Math.ceil((Date.parse(status.gracePeriodEndsAt) - now) / DAY_MS));
    return {
      tone: 'warning',
      title: `Payment is past due: ${days} day${days === 1 ? '' : 's'} of grace left`,
      text: `Pay before ${new Date(status.gracePeriodEndsAt).toLocaleDateString()} to keep changes and signatures working.`,
    };
  }
  return undefined;
}
