import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, listQuery, orgParams, page, text, uuid, type ZodApp } from '../http/schemas.ts';
import { versionCheck, withEtag } from '../http/concurrency.ts';
import type { RenderService } from '../render/module.ts';
import { renderedSchema } from '../render/module.ts';
import type { TemplateService } from './service.ts';
import {
  compileBodySchema,
  compiledSchema,
  savedTemplateSchema,
  templateCreateSchema,
  templateParams,
  templatePatchSchema,
  templateSchema,
} from './schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

export function templateRoutes(deps: { guards: Guards; billing: BillingHooks; templates: TemplateService; render: RenderService }): FastifyPluginAsyncZod {
  const { guards, billing, templates, render } = deps;
  /** The org's templates: list, create, preview an unsaved one, compile a design. */
  const collection = (app: ZodApp): void => {
    app.get(
      '/v1/orgs/:orgId/templates',
      {
        onRequest: guards.org('template.read'),
        schema: {
          operationId: 'listTemplates',
          summary: "List the org's templates",
          tags: ['templates'],
          params: orgParams,
          querystring: listQuery,
          response: { 200: page(templateSchema), ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        return templates.list(request.params.orgId, request.query);
      },
    );

    app.post(
      '/v1/orgs/:orgId/templates',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'createTemplate',
          summary: 'Create a template (admin)',
          description:
            "Send hand-written `html` (and `text`), or a `design` that the service compiles into them (docs/designer.md); not both. The answer carries `source` (`design` or `html`) and the save's `warnings`.",
          tags: ['templates'],
          params: orgParams,
          body: templateCreateSchema,
          response: { 201: savedTemplateSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const template = await templates.create(writeContext(request), request.body);
        reply.code(201);
        return withEtag(reply, template);
      },
    );

    app.post(
      '/v1/orgs/:orgId/templates/preview',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        schema: {
          operationId: 'previewTemplate',
          summary: 'Render an unsaved template for a user (the editor preview; admin)',
          tags: ['render'],
          params: orgParams,
          body: z
            .strictObject({ userId: uuid, html: text().max(100_000), text: text().max(100_000).default('') })
            .meta({ examples: [{ userId: EXAMPLE.userId, html: EXAMPLE.html, text: EXAMPLE.text }] }),
          response: { 200: renderedSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => render.preview(request.params.orgId, request.body.userId, request.body),
    );
    app.post(
      '/v1/orgs/:orgId/templates/compile',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        schema: {
          operationId: 'compileDesign',
          summary: "Compile a design into a template's html and text without saving (the designer's preview; admin)",
          description:
            "Answers what saving the design would store, and every warning the save would give (the compiler's: a missing or blurry image; the template checks': what a mail client will not show). Saves nothing, counts nothing. An unknown block type or field is 400 naming it.",
          tags: ['templates'],
          params: orgParams,
          body: compileBodySchema,
          response: { 200: compiledSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => templates.compileDesign(request.params.orgId, request.body.design),
    );
  };

  /** One template: read, change, delete. */
  const item = (app: ZodApp): void => {
    app.get(
      '/v1/orgs/:orgId/templates/:templateId',
      {
        onRequest: guards.org('template.read'),
        config: { etag: true },
        schema: {
          operationId: 'getTemplate',
          summary: 'Read a template',
          tags: ['templates'],
          params: templateParams,
          response: { 200: templateSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => withEtag(reply, await templates.get(request.params.orgId, request.params.templateId)),
    );

    app.patch(
      '/v1/orgs/:orgId/templates/:templateId',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'updateTemplate',
          summary: 'Update a template (admin)',
          description:
            'Send `version`; a stale one is 409, a stale `If-Match` 412. `design` compiles into html and text and makes `source` `design`; `html` or `text` written by hand makes it `html` and keeps the last design as history.',
          tags: ['templates'],
          params: templateParams,
          body: templatePatchSchema,
          response: { 200: savedTemplateSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { version, ...patch } = request.body;
        const template = await templates.update(writeContext(request), request.params.templateId, versionCheck(request, version), patch);
        return withEtag(reply, template);
      },
    );

    app.delete(
      '/v1/orgs/:orgId/templates/:templateId',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        schema: {
          operationId: 'deleteTemplate',
          summary: 'Delete a template (soft delete; admin)',
          tags: ['templates'],
          params: templateParams,
          response: { 204: z.null().describe('deleted'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await templates.remove(writeContext(request), request.params.templateId);
        return reply.code(204).send(null);
      },
    );
  };

  return async (app) => {
    collection(app);
    item(app);
  };
}
