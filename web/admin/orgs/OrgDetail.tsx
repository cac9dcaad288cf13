// One organisation as staff see it: its billing fields and plan status, seats used and limit, its
// staff overrides (seats, plan, trial, quota), its users (read-only, with their status), the payment events applied to it with their outcome, and its audit trail.
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import { when } from '../lib/format.ts';
import type { AdminOrg } from '../lib/types.ts';
import { useAdminOrg } from './api.ts';
import { OrgUsers } from './OrgUsers.tsx';
import { OrgEvents } from './OrgEvents.tsx';
import { OrgAudit } from './OrgAudit.tsx';
import { OverridesCard } from './OverridesCard.tsx';

export default function OrgDetail() {
  const { orgId = '' } = useParams();
  const { data: org, error, loading } = useAdminOrg(orgId);
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/orgs">Organisations</Link>
      </p>
      <PageHeader title={org?.name ?? 'Organisation'}>{org ? <code>{org.orgId}</code> : null}</PageHeader>
      <ErrorMessage error={error} />
      {loading && !org ? <Loading /> : null}
      {org ? (
        <>
          <Billing org={org} />
          <OverridesCard key={JSON.stringify(org.overrides)} org={org} />
          <OrgUsers orgId={org.orgId} />
          <OrgEvents orgId={org.orgId} />
          <OrgAudit orgId={org.orgId} />
        </>
      ) : null}
    </section>
  );
}

function Billing({ org }: { org: AdminOrg }) {
  const { planStatus } = org;
  const rows: [string, ReactNode][] = [
    ['Subscription status', <StatusPill key="status" status={org.subscriptionStatus} />],
    ['Plan', org.plan],
    ['Price version', org.priceVersion ?? '—'],
    ['Current period ends', when(org.currentPeriodEnd)],
    ['Grace period ends', when(org.gracePeriodEndsAt)],
    ['Customer id', <code key="customer">{org.providerCustomerId ?? '—'}</code>],
    ['Subscription id', <code key="subscription">{org.providerSubscriptionId ?? '—'}</code>],
    ['Newest payment event', when(org.billingEventAt)],
    ['Created', when(org.createdAt)],
  ];
  return (
    <div className="two-col">
      <section className="card" aria-labelledby="billing-h">
        <h2 id="billing-h">Billing</h2>
        <dl className="facts">
          {rows.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="card" aria-labelledby="plan-h">
        <h2 id="plan-h">Plan status</h2>
        <dl className="facts">
          <div>
            <dt>Writes</dt>
            <dd>{planStatus.writable ? <StatusPill status="active" label="allowed" /> : <StatusPill status="failed" label="blocked: grace period ended" />}</dd>
          </div>
          <div>
            <dt>Cap reached</dt>
            <dd>{planStatus.blockedBy === 'seats' ? 'every seat is taken' : planStatus.blockedBy === 'grace_expired' ? 'grace period ended' : 'none'}</dd>
          </div>
          <div>
            <dt>Seats used</dt>
            <dd>
              {planStatus.seats.used} of {planStatus.seats.limit}
              {org.overSeatLimit ? <StatusPill status="failed" label="over the limit" /> : null}
            </dd>
          </div>
        </dl>
      </section>
    </div>
  );
}
