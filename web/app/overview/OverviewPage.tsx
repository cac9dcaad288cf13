// The org at a glance for admins and owners: plan and subscription, seats, API requests against the
// monthly quota, the current period, and 30 days of signature opens. (The payment banner above every page says when payment is due.)
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { OpensChart } from './OpensChart.tsx';
import { fillDays, lastDays } from './days.ts';
import { GettingStarted } from './GettingStarted.tsx';
import { useOpens, useOverviewOrg, useOverviewPlan, useOverviewTemplates } from './api.ts';

const STATUS_TEXT: Record<string, string> = {
  trialing: 'Trial',
  active: 'Active',
  past_due: 'Past due',
  canceled: 'Cancelled',
  unpaid: 'Unpaid',
  incomplete: 'Incomplete',
};

const date = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' }) : '—');

/** API-key requests this month against the org's quota (plan-status; people using the apps do not count). */
function QuotaStat({ quota }: { quota: { limit: number | null; used: number; resetsAt: string } }) {
  const number = (n: number) => n.toLocaleString();
  return (
    <div className="stat">
      <dt>API requests this month</dt>
      <dd>
        {quota.limit === null ? `${number(quota.used)} (no quota)` : `${number(quota.used)} of ${number(quota.limit)}`}
        {quota.limit !== null ? (
          <meter className="seats" min={0} max={Math.max(quota.limit, 1)} value={Math.min(quota.used, quota.limit)} aria-label="API requests this month" />
        ) : null}
        <small className="muted"> resets {date(quota.resetsAt)}</small>
      </dd>
    </div>
  );
}

export default function OverviewPage() {
  const org = useOverviewOrg();
  const plan = useOverviewPlan();
  const templates = useOverviewTemplates();
  const days = lastDays(30);
  const opens = useOpens(days[0]!, days[days.length - 1]!);
  const o = org.data;
  return (
    <section className="page">
      <PageHeader title={o ? o.name : 'Overview'}>Your organisation’s plan, seats and how often its signatures are seen.</PageHeader>
      {org.loading && !o ? <Loading /> : null}
      <ErrorMessage error={org.error} />
      {o && templates.data ? <GettingStarted facts={{ hasDefaultTemplate: templates.data.items.some((t) => t.isDefault), seatsUsed: o.seatsUsed }} /> : null}
      {o ? (
        <dl className="grid" aria-label="Subscription">
          <div className="stat">
            <dt>Plan</dt>
            <dd className="capitalize">{o.plan}</dd>
          </div>
          <div className="stat">
            <dt>Subscription</dt>
            <dd>
              {STATUS_TEXT[o.subscriptionStatus] ?? o.subscriptionStatus}
              {plan.data && !plan.data.writable ? <span className="pill pill-warning"> blocked</span> : null}
            </dd>
          </div>
          <div className="stat">
            <dt>Seats used</dt>
            <dd>
              {o.seatsUsed} of {o.seats}
              <meter className="seats" min={0} max={Math.max(o.seats, 1)} value={Math.min(o.seatsUsed, o.seats)} aria-label="Seats used" />
            </dd>
          </div>
          {plan.data ? <QuotaStat quota={plan.data.quota} /> : null}
          <div className="stat">
            <dt>{o.gracePeriodEndsAt ? 'Grace period ends' : 'Current period ends'}</dt>
            <dd>{date(o.gracePeriodEndsAt ?? o.currentPeriodEnd)}</dd>
          </div>
        </dl>
      ) : null}
      <div className="card" style={{ marginTop: '1.25rem' }}>
        <h2>Signature opens, last 30 days</h2>
        <ErrorMessage error={opens.error} />
        {opens.data ? <OpensChart data={fillDays(days, opens.data.items)} /> : opens.loading ? <Loading /> : null}
      </div>
    </section>
  );
}
