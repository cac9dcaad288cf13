// The dashboard at APP_URL: an org's people get their signature; admins and owners run the org.
import { Navigate } from 'react-router';
import { startApp } from '../shared/start.tsx';
import { collect, type FeatureRoute } from '../shared/feature.ts';
import { atLeast, useApp } from '../shared/app-context.tsx';
import { PaymentBanner } from '../shared/shell/PaymentBanner.tsx';

const { routes, nav } = collect(import.meta.glob<{ route: FeatureRoute }>('./*/route.ts', { eager: true }));

/** The start page: admins land on the overview, everyone else on their signature. */
function Home() {
  const { me } = useApp();
  return <Navigate to={atLeast(me, 'admin') ? '/overview' : '/signature'} replace />;
}

void startApp({
  product: 'Signature Service',
  nav,
  routes: [{ index: true, element: <Home /> }, ...routes],
  Banner: PaymentBanner,
  refuse: (me) => (me.orgId ? undefined : 'This account belongs to no organisation. Staff use the admin app.'),
});
