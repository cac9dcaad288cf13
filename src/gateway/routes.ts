// The gateway's org routes (docs/gateway.md): sender domains and their verification, the
// settings and credentials, a test message; and staff's domain override and error list.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { staffContext, writeContext, type Guards } from '../http/guard.ts';
import type { BillingHooks } from '../http/guard.ts';
import { errorResponses, orgParams, text, uuid } from '../http/schemas.ts';
import type { Gateway } from './gateway.ts';
import { secretAnswer } from '../http/secret-answer.ts';
import {
  domainParams,
  domainSchema,
  domainsSchema,
  gatewayErrorsSchema,
  presentDomain,
  presentError,
  presentSettings,
  settingsBody,
  settingsSchema,
  testResultSchema,
} from './schemas.ts';

const tags = ['gateway'];

export function gatewayRoutes(deps: { guards: Guards; billing: BillingHooks; gateway: Gateway }): FastifyPluginAsyncZod {
  // Three groups, each one plugin: the domains, the settings, staff's views.
  return async (app) => {
    await app.register(domainRoutes(deps));
    await app.register(settingsRoutes(deps));
    await app.register(staffRoutes(deps));
  };
}

type RouteDeps = { guards: Guards; billing: BillingHooks; gateway: Gateway };

/** Sender domains: claim, list, remove, verify by DNS. */
function domainRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  const { guards, billing, gateway } = deps;
  const admin = guards.org('integration.manage');
  return async (app) => {
    app.post(
      '/v1/orgs/:orgId/domains',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'claimDomain',
          summary: 'Claim a sender domain for the gateway (admin); verify it with the TXT record answered',
          tags,
          params: orgParams,
          body: z.strictObject({ domain: text().min(1).max(253) }).meta({ examples: [{ domain: 'contoso.com' }] }),
          response: { 201: domainSchema, ...errorResponses('FORBIDDEN', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const row = await gateway.domains.claim(writeContext(request), request.body.domain);
        return reply.code(201).send(presentDomain(row));
      },
    );

    app.get(
      '/v1/orgs/:orgId/domains',
      {
        onRequest: admin,
        schema: {
          operationId: 'listDomains',
          summary: "The org's sender domains and their verification (admin)",
          tags,
          params: orgParams,
          response: { 200: domainsSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => ({ items: (await gateway.domains.list(request.params.orgId)).map(presentDomain) }),
    );

    app.delete(
      '/v1/orgs/:orgId/domains/:domain',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'removeDomain',
          summary: 'Remove a sender domain (admin)',
          tags,
          params: domainParams,
          response: { 204: z.null().describe('removed'), ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        await gateway.domains.remove(writeContext(request), request.params.domain);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v1/orgs/:orgId/domains/:domain/verify',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'verifyDomain',
          summary: "Look the domain's TXT record up and mark it verified (admin)",
          description: '409 when the record is missing or holds another value (`details.found`), or when the domain is verified for another org.',
          tags,
          params: domainParams,
          response: { 200: domainSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => presentDomain(await gateway.domains.verify(writeContext(request), request.params.domain)),
    );
  };
}

/** The settings and credentials, and a test message. */
function settingsRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  const { guards, billing, gateway } = deps;
  const admin = guards.org('integration.manage');
  return async (app) => {
    app.put(
      '/v1/orgs/:orgId/integrations/gateway',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'putGateway',
          summary: 'Set up the SMTP signature gateway (admin); a new gateway answers its password once',
          tags,
          params: orgParams,
          body: settingsBody,
          response: { 200: settingsSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { row, password } = await gateway.settings.put(writeContext(request), request.body);
        if (password) secretAnswer(reply);
        const status = await gateway.settings.status(row.org_id);
        return presentSettings(status.row, { ...status, domain: gateway.domain, password });
      },
    );

    app.get(
      '/v1/orgs/:orgId/integrations/gateway',
      {
        onRequest: admin,
        schema: {
          operationId: 'getGateway',
          summary: "The gateway's settings, today's counts and the routing steps (admin)",
          tags,
          params: orgParams,
          response: { 200: settingsSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (request) => {
        const status = await gateway.settings.status(request.params.orgId);
        return presentSettings(status.row, { ...status, domain: gateway.domain });
      },
    );

    app.post(
      '/v1/orgs/:orgId/integrations/gateway/rotate-password',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'rotateGatewayPassword',
          summary: 'A new SMTP password for the gateway (admin), answered once; the old one stops working',
          tags,
          params: orgParams,
          response: { 200: settingsSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'PAYMENT_REQUIRED') },
        },
      },
      async (request, reply) => {
        const { row, password } = await gateway.settings.rotatePassword(writeContext(request));
        secretAnswer(reply);
        const status = await gateway.settings.status(row.org_id);
        return presentSettings(status.row, { ...status, domain: gateway.domain, password });
      },
    );

    app.post(
      '/v1/orgs/:orgId/integrations/gateway/test',
      {
        onRequest: [admin, billing.writeGate],
        schema: {
          operationId: 'testGateway',
          summary: 'Send a test message from the caller through the gateway to its next hop (admin)',
          description:
            "From the caller's address (an API key: `from`, an address of a verified domain). The answer says what the gateway did and what the next hop answered.",
          tags,
          params: orgParams,
          body: z.strictObject({ to: z.email().max(254), from: z.email().max(254).optional() }).meta({ examples: [{ to: 'ada@example.com' }] }),
          response: { 200: testResultSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYMENT_REQUIRED') },
        },
      },
      async (request) => gateway.sendTest(writeContext(request), request.body),
    );
  };
}

/** Staff's views: verifying an org's domain by hand, and the gateway's failures across orgs. */
function staffRoutes(deps: RouteDeps): FastifyPluginAsyncZod {
  const { guards, gateway } = deps;
  return async (app) => {
    app.post(
      '/v1/admin/orgs/:orgId/domains/:domain/verify',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'staffVerifyDomain',
          summary: 'Mark a domain verified for an org without its DNS record (staff)',
          tags: ['admin'],
          params: domainParams,
          response: { 200: domainSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT') },
        },
      },
      async (request) => presentDomain(await gateway.staffVerify(staffContext(request), request.params.orgId, request.params.domain)),
    );

    app.get(
      '/v1/admin/gateway-errors',
      {
        onRequest: guards.staff(),
        schema: {
          operationId: 'listGatewayErrors',
          summary: "The gateway's refusals and failures across orgs, newest first (staff)",
          tags: ['admin'],
          querystring: z.object({
            orgId: uuid.optional(),
            from: z.iso.datetime().optional().describe('from this time (inclusive)'),
            to: z.iso.datetime().optional().describe('before this time'),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          }),
          response: { 200: gatewayErrorsSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (request) => {
        const { orgId, from, to, limit } = request.query;
        const rows = await gateway.errors({ orgId, from: from ? new Date(from) : undefined, to: to ? new Date(to) : undefined }, limit);
        return { items: rows.map(presentError) };
      },
    );
  };
}
