// The two single-page apps (docs/web-apps.md): the dashboard at APP_URL's path and the staff
// app at ADMIN_URL's, built by `npm run build:web` (run by `npm install`) into WEB_DIST_DIR.
// Hashed assets are cached for a year; index.html never, and it answers every deep link under the
// app's path. When an app was not built, its path answers a page saying how to build it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Logger } from '../log.ts';
import { contentSecurityPolicy, fillIndexHtml, pageHeaders } from './index-html.ts';
import type { WebAppLimits, WebAppRuntimeConfig } from './runtime-config.ts';

export interface WebAppSpec {
  name: 'app' | 'admin';
  url: string;
  clientId: string;
}

export interface WebAppsOptions {
  apps: WebAppSpec[];
  distDir: string;
  authUrl: string;
  apiUrl: string;
  billingUrl?: string;
  /** The limits the pages check before asking (the composition root gathers them from their owners). */
  limits: WebAppLimits;
  logger: Logger;
}

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

export function webAppRoutes(opts: WebAppsOptions) {
  return async (app: FastifyInstance) => {
    const distDir = path.resolve(PROJECT_ROOT, opts.distDir);
    const csp = contentSecurityPolicy({ api: new URL(opts.apiUrl).origin, auth: new URL(opts.authUrl).origin });
    const headers = pageHeaders(csp);
    for (const spec of opts.apps) {
      const prefix = new URL(spec.url).pathname.replace(/\/+$/, '');
      const dir = path.join(distDir, spec.name);
      const indexFile = path.join(dir, 'index.html');
      const routes = [prefix || '/', `${prefix}/*`];

      if (!existsSync(indexFile)) {
        opts.logger.warn({ app: spec.name, dir }, 'web app not built: run `npm run build:web`');
        const page = notBuiltPage(spec.name);
        for (const url of routes) {
          app.get(url, { schema: { hide: true } }, async (_request, reply) => html(reply.code(503), headers, page));
        }
        continue;
      }

      const config: WebAppRuntimeConfig = {
        app: spec.name,
        appUrl: spec.url,
        authUrl: opts.authUrl,
        clientId: spec.clientId,
        apiUrl: opts.apiUrl,
        ...(opts.billingUrl ? { billingUrl: opts.billingUrl } : {}),
        limits: opts.limits,
      };
      const page = fillIndexHtml(readFileSync(indexFile, 'utf8'), `${prefix}/`, config);

      // Vite names every asset by its content's hash, so a year's cache is safe.
      await app.register(fastifyStatic, {
        root: path.join(dir, 'assets'),
        prefix: `${prefix}/assets/`,
        decorateReply: false,
        index: false,
        list: false,
        immutable: true,
        preCompressed: true,
        maxAge: '365d',
        setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
      });
      for (const url of routes) {
        app.get(url, { schema: { hide: true } }, async (_request, reply) => html(reply.header('cache-control', 'no-cache'), headers, page));
      }
    }
  };
}

function html(reply: FastifyReply, headers: Record<string, string>, body: string) {
  return reply.headers(headers).type('text/html; charset=utf-8').send(body);
}

function notBuiltPage(name: string): string {
  const what = name === 'app' ? 'The dashboard' : 'The staff admin app';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not built</title></head><body>` +
    `<h1>${what} is not built</h1><p>Build the web apps with <code>npm run build:web</code> ` +
    `(<code>npm install</code> runs it), then restart the service.</p></body></html>`
  );
}
