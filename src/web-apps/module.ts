// The two single-page apps (the dashboard and the staff app), served with their runtime config.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from '../images/module.ts';
import { TEMPLATE_SOURCE_MAX } from '../templates/module.ts';
import { webAppRoutes } from './routes.ts';

export { allowedWebOrigins } from './origins.ts';

export function webAppsModule(core: Core, needs: { clientIds: { app: string; admin: string } }): Module<undefined> {
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
        limits: {
          renderBytes: config.renderLimitBytes,
          templateSourceChars: TEMPLATE_SOURCE_MAX,
          imageBytes: IMAGE_MAX_BYTES,
          imageSidePx: IMAGE_MAX_SIDE,
          passwordMinChars: MIN_PASSWORD_LENGTH,
        },
        logger: core.logger,
      }),
    ],
  };
}
