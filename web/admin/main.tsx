// The staff admin app at ADMIN_URL, signed in through the admin client (TOTP required before any
// page shows). Each page is a folder with a route.ts; this file only starts the shared shell.
import { Navigate } from 'react-router';
import { startApp } from '../shared/start.tsx';
import { collect, type FeatureRoute } from '../shared/feature.ts';
import './admin.css';

const { routes, nav } = collect(import.meta.glob<{ route: FeatureRoute }>('./*/route.ts', { eager: true }));

void startApp({
  product: 'Signature Service staff',
  nav,
  routes: [{ index: true, element: <Navigate to="/orgs" replace /> }, ...routes],
  refuse: (me) => (me.role === 'super-admin' ? undefined : 'This app is for the service’s staff. Organisation accounts use the dashboard.'),
});
