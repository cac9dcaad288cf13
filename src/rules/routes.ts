import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { writeContext, type BillingHooks, type Guards } from '../http/guard.ts';

import { etagOf, parseIfMatch } from '../http/concurrency.ts';
import { errorResponses, orgParams } from '../http/schemas.ts';
import { ruleListSchema, rulesBodySchema } from './schemas.ts';
import type { RuleService } from './service.ts';

export function ruleRoutes(deps: { guards: Guards; billing: BillingHooks; rules: RuleService }): FastifyPluginAsyncZod {
  const { guards, billing, rules } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/rules',
      {
        onRequest: guards.org('rule.read'),
        config: { etag: true },
        schema: {
          operationId: 'getRules',
          summary: "The org's assignment rules, in order, with an ETag (admin)",
          description: 'Which template each person gets: the first rule a user meets wins; nobody matched gets the default template.',
          tags: ['templates'],
          params: orgParams,
          response: { 200: ruleListSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const list = await rules.list(request.params.orgId);
        reply.header('etag', etagOf(list.version));
        return list.rules;
      },
    );

    app.put(
      '/v1/orgs/:orgId/rules',
      {
        onRequest: [guards.org('template.write'), billing.writeGate],
        config: { etag: true },
        schema: {
          operationId: 'replaceRules',
          summary: "Replace the org's assignment rules (admin)",
          description:
            'The whole list, in order. Send `If-Match` with the ETag you read: a stale one is 412; without it the last write wins. ' +
            "Every templateId must name one of the org's templates (400 naming the field).",
          tags: ['templates'],
          params: orgParams,
          body: rulesBodySchema,
          response: { 200: ruleListSchema, ...errorResponses('BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const header = request.headers['if-match'];
        const list = await rules.replace(writeContext(request), request.body, parseIfMatch(typeof header === 'string' ? header : undefined));
        reply.header('etag', etagOf(list.version));
        return list.rules;
      },
    );
  };
}
