// The two single-page apps (the dashboard and the staff app), served with their runtime config.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { webAppRoutes } from './routes.ts';
import type { WebAppLimits } from './runtime-config.ts';

export { allowedWebOrigins } from './origins.ts';

export function webAppsModule(
  core: Core,
  needs: {
    clientIds: { app: string; admin: string };
    /** The server's limits the forms check first, but RENDER_LIMIT_BYTES (config's): the composition root reads them from their capabilities. */
    limits: Omit<WebAppLimits, 'renderBytes'>;
  },
): Module<undefined> {
  const { config } = core;
  return {
    name: 'web-apps',
    service: undefined,
    public: [
      webAppRoutes({
        apps: [
          { name: 'app', url: config.appUrl, clientId: needs.clientIds.app },
          { name: 'admin', url: config.adminUrl, clientId: needs.clientIds.admin },
        ],
        distDir: config.webDistDir,
        authUrl: config.authUrl,
        apiUrl: config.baseUrl,
        ...(config.billingUrl ? { billingUrl: config.billingUrl } : {}),
        // What the web apps' forms check before the server does: the server's own limits.
        limits: { renderBytes: config.renderLimitBytes, ...needs.limits },
        logger: core.logger,
      }),
    ],
  };
}
