// A status as a small label: green when all is well, amber when it needs a look.
const GOOD = new Set(['active', 'applied', 'trialing', 'succeeded']);
const WATCH = new Set([
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
  'failed',
  'pending',
  'invited',
  'disabled',
  'suspended',
]);

export function StatusPill({ status, label }: { status: string; label?: string }) {
  const kind = GOOD.has(status) ? ' pill-success' : WATCH.has(status) ? ' pill-warning' : '';
  return <span className={`pill${kind}`}>{label ?? status.replaceAll('_', ' ')}</span>;
}
