// What the payment banner says for the org's plan status (read by usePlanStatus in
// api/resources.ts: any 402 invalidates it, so the banner appears the moment a write is refused).
import type { PlanStatus } from '../api/types.ts';

export interface BannerText {
  tone: 'error' | 'warning';
  title: string;
  text: string;
}

const DAY_MS = 86_400_000;

/**
 * What the banner says for a plan status, or nothing when all is well. Seats concern only those who
 * add users (admins and owners): a member cannot act on them, so is not told on every page.
 */
export function bannerFor(status: PlanStatus, opts: { managesUsers: boolean }, now = Date.now()): BannerText | undefined {
  if (status.blockedBy === 'grace_expired') {
    return {
      tone: 'error',
      title: 'Your organisation is blocked: payment is overdue',
      text: 'The grace period has ended, so changes and signature renders are refused until the subscription is paid.',
    };
  }
  if (status.blockedBy === 'seats') {
    if (!opts.managesUsers) return undefined;
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
