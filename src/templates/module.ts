// Templates of an org, and the starter gallery (a new org's default is the first starter).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { RenderService } from '../render/module.ts';
import { createTemplateService, type TemplateService } from './service.ts';
import { templateRoutes } from './routes.ts';
import { starterRoutes } from './starter-routes.ts';
import { DEFAULT_STARTER } from './starters.ts';

export { DEFAULT_STARTER, type TemplateService };
export { TEMPLATE_SOURCE_MAX } from './schemas.ts';
/** A template as the API answers it (the outbound webhooks' `template.*` events carry it). */
export { toTemplate } from './resource.ts';

export function templatesModule(core: Core, needs: { render: Module<RenderService> }): Module<TemplateService> {
  const render = needs.render.service;
  const { baseUrl } = core.config;
  const templates = createTemplateService({ db: core.db, compile: render.compile, invalidate: core.caches.invalidate, baseUrl });
  return {
    name: 'templates',
    service: templates,
    api: ({ guards, billing }) => [templateRoutes({ guards, billing, templates, render }), starterRoutes({ guards, baseUrl })],
  };
}
