// Starts a web app: reads the runtime config, completes or starts the sign-in, then renders the
// shell and the router under the app's path. Both apps (dashboard, staff) start here.
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { readRuntimeConfig, basePath } from './config.ts';
import { Session } from './auth/session.ts';
import { createApi } from './api/client.ts';
import { invalidate } from './api/query.ts';
import { errorMessage } from './api/errors.ts';
import { AppContext, type Me, type OrgRole } from './app-context.tsx';
import { Layout, type ShellOptions } from './shell/Layout.tsx';
import { NotFound, RouteError } from './shell/RouteError.tsx';
import './styles.css';

export interface AppDefinition extends ShellOptions {
  routes: RouteObject[];
  /** Refuses a signed-in person the app is not for (e.g. staff only); returns the reason. */
  refuse?: (me: Me) => string | undefined;
}

export async function startApp(def: AppDefinition): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  root.render(<Splash text="Signing in…" />);
  try {
    const config = readRuntimeConfig();
    const session = await Session.start(config);
    if (!session.signedIn) return void (await session.signIn());
    // A renewal that failed (the sign-in ended elsewhere): sign in again, back to this page.
    session.subscribe(() => {
      if (!session.signedIn) void session.signIn();
    });
    const c = session.claims;
    const me: Me = {
      userId: c.sub,
      email: c.email ?? '',
      name: c.name ?? '',
      ...(c['custom:orgId'] ? { orgId: c['custom:orgId'] } : {}),
      role: (c['custom:role'] ?? 'member') as OrgRole | 'super-admin',
    };
    const refusal = def.refuse?.(me);
    if (refusal) return renderFatal(root, refusal, () => session.signOut(), 'Sign out');
    const api = createApi(session, { onPaymentRequired: () => void invalidate(['plan-status']) });
    const router = createBrowserRouter(
      [
        {
          path: '/',
          element: <Layout product={def.product} nav={def.nav} {...(def.Banner ? { Banner: def.Banner } : {})} />,
          errorElement: <RouteError />,
          // A deep link's page is a lazy route: the router shows this until its chunk has loaded.
          hydrateFallbackElement: <Splash text="Loading…" />,
          children: [...def.routes, { path: '*', element: <NotFound /> }],
        },
      ],
      { basename: basePath(config) },
    );
    root.render(
      <StrictMode>
        <AppContext.Provider value={{ config, session, api, me }}>
          <RouterProvider router={router} />
        </AppContext.Provider>
      </StrictMode>,
    );
  } catch (err) {
    renderFatal(root, errorMessage(err), () => location.assign(location.pathname), 'Try again');
  }
}

function renderFatal(root: Root, message: string, action: () => void, label: string) {
  root.render(
    <main className="splash">
      <h1>Signature Service</h1>
      <div className="alert alert-error" role="alert">
        <p>{message}</p>
      </div>
      <button type="button" className="btn btn-primary" onClick={action}>
        {label}
      </button>
    </main>,
  );
}

function Splash({ text }: { text: string }) {
  return (
    <main className="splash" aria-busy="true">
      <p role="status">{text}</p>
    </main>
  );
}
