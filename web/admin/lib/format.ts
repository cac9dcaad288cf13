// How the admin app writes times and ids: UTC, to the minute (staff compare them with logs).
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '—';
}

/** The subscription statuses the payment provider sends (docs/guide.md, "Billing states"). */
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'] as const;

export const EVENT_STATUSES = ['applied', 'ignored', 'failed', 'pending'] as const;
