// The banner of an org whose plan blocks (or will soon block) writes: which cap, and what to do,
// with a link to BILLING_URL when the stage has one.
import { atLeast, useOrg } from '../app-context.tsx';
import { usePlanStatus } from '../api/resources.ts';
import { bannerFor } from '../billing/plan-status.ts';

export function PaymentBanner() {
  const { config, me, orgId } = useOrg();
  const { data } = usePlanStatus(orgId);
  const banner = data ? bannerFor(data, { managesUsers: atLeast(me, 'admin') }) : undefined;
  if (!banner) return null;
  return (
    <section className={`alert alert-${banner.tone} banner`} aria-labelledby="payment-banner-title">
      <div>
        <p>
          <strong id="payment-banner-title">{banner.title}</strong>
        </p>
        <p>{banner.text}</p>
      </div>
      {config.billingUrl ? (
        <a className="btn btn-primary" href={config.billingUrl}>
          Go to billing
        </a>
      ) : me.role === 'owner' ? (
        <p className="muted small">Update the subscription where your organisation pays for this service, or ask the service’s operator.</p>
      ) : (
        <p className="muted small">Ask your organisation’s owner to update the subscription.</p>
      )}
    </section>
  );
}
