// The Outlook add-in's routes: the admin's (key, rotation, manifest) in the authenticated scope,
// and the add-in's own (its files, the well-known list, the signature) outside it: Outlook
// fetches those with no credentials but the org's add-in key.
import { readFileSync } from 'node:fs';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { writeContext, type Guards, type BillingHooks } from '../http/guard.ts';
import { errorResponses, isoOrNull, nullableTimestamp, orgParams, text, type ZodApp } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import type { Throttle } from '../ratelimit/hook.ts';
import { AppError } from '../kernel/errors.ts';
import { ADDIN_KEY_PATTERN } from './addin-key.ts';
import { secretAnswer } from '../http/secret-answer.ts';
import { addinUrls, ICON_SIZES } from './manifest.ts';
import type { OutlookService } from './service.ts';

const outlookSchema = z
  .object({
    addinKey: z
      .string()
      .nullable()
      .describe('the key the add-in sends as `X-Addin-Key`; it is written into the manifest. `null` until `rotate-key` or a manifest download makes one'),
    manifestUrl: z.url().describe('the XML manifest to upload in the Microsoft 365 admin center (Integrated apps)'),
    lastFetchAt: nullableTimestamp.describe('when the add-in last fetched a signature of this org'),
  })
  .meta({
    id: 'OutlookIntegration',
    examples: [
      {
        addinKey: 'oak_3q2Vd0Zk1yQm8Xw7Lp5Rt9Uj4Hc6Bn2Fa0Gs8Ek1Mo7',
        manifestUrl: `https://signatures.example.com/v1/orgs/${EXAMPLE.orgId}/integrations/outlook/manifest.xml`,
        lastFetchAt: EXAMPLE.updatedAt,
      },
    ],
  });

/** A response that is not JSON: its media type and what it is, for the OpenAPI document. */
const body = (mediaType: string, description: string, example?: string) => ({
  description,
  content: { [mediaType]: { schema: z.string().meta({ contentMediaType: mediaType, ...(example ? { examples: [example] } : {}) }) } },
});

const present = (o: { addinKey: string | null; manifestUrl: string; lastFetchAt: Date | null }) => ({ ...o, lastFetchAt: isoOrNull(o.lastFetchAt) });

export function outlookRoutes(deps: { guards: Guards; billing: BillingHooks; outlook: OutlookService }): FastifyPluginAsyncZod {
  const { guards, billing, outlook } = deps;
  return async (app) => {
    app.get(
      '/v1/orgs/:orgId/integrations/outlook',
      {
        onRequest: guards.org('integration.manage'),
        schema: {
          operationId: 'getOutlookIntegration',
          summary: 'The Outlook add-in: its key, its manifest, its last fetch (admin)',
          description: 'Reading makes nothing: `addinKey` is `null` until `rotate-key` or a manifest download makes the first key.',
          tags: ['integrations'],
          params: orgParams,
          response: { 200: outlookSchema, ...errorResponses('FORBIDDEN', 'SERVICE_UNAVAILABLE') },
        },
      },
      // Both answers carry the add-in key (the same answer with or without one: keep it simple).
      async (request, reply) => {
        const answer = present(await outlook.integration(request.params.orgId));
        secretAnswer(reply);
        return answer;
      },
    );

    app.post(
      '/v1/orgs/:orgId/integrations/outlook/rotate-key',
      {
        onRequest: [guards.org('integration.manage'), billing.writeGate],
        schema: {
          operationId: 'rotateOutlookAddinKey',
          summary: 'Replace the Outlook add-in key (admin)',
          description: 'The old key stops working: upload the new manifest in the Microsoft 365 admin center.',
          tags: ['integrations'],
          params: orgParams,
          response: { 200: outlookSchema, ...errorResponses('FORBIDDEN', 'PAYMENT_REQUIRED', 'SERVICE_UNAVAILABLE') },
        },
      },
      async (request, reply) => {
        const answer = present(await outlook.rotateKey(writeContext(request)));
        secretAnswer(reply);
        return answer;
      },
    );

    app.get(
      '/v1/orgs/:orgId/integrations/outlook/manifest.xml',
      {
        onRequest: guards.org('integration.manage'),
        schema: {
          operationId: 'getOutlookManifest',
          summary: "The org's Outlook add-in manifest, XML (admin)",
          description: 'Event-based activation on OnNewMessageCompose, OnNewAppointmentOrganizer (Mailbox 1.10) and OnMessageFromChanged (1.13).',
          tags: ['integrations'],
          params: orgParams,
          response: {
            200: body(
              'application/xml',
              'The manifest, as a file to upload in the Microsoft 365 admin center',
              '<?xml version="1.0" encoding="UTF-8"?>\n<OfficeApp xsi:type="MailApp">…</OfficeApp>',
            ),
            ...errorResponses('FORBIDDEN', 'SERVICE_UNAVAILABLE'),
          },
        },
      },
      async (request, reply) => {
        const manifest = await outlook.manifest(writeContext(request));
        reply
          .type('application/xml; charset=utf-8')
          .header('content-disposition', 'attachment; filename="signature-addin-manifest.xml"')
          // It writes the add-in key into every URL.
          .header('cache-control', 'private, no-store');
        return reply.send(manifest);
      },
    );
  };
}

const ASSETS = new URL('./addin/', import.meta.url);
const asset = (name: string) => readFileSync(new URL(name, ASSETS));
const keyQuery = z.object({
  key: z.string().regex(ADDIN_KEY_PATTERN, { message: 'is not an add-in key' }).optional().describe("the org's add-in key, as the manifest writes it"),
});

// A file that embeds the org's add-in key is no shared cache's to keep (a secret, kept out of logs
// too: src/http/request-log.ts); without a key it is the same for everyone.
const keyedCache = (key: string | undefined) => (key ? 'private, no-store' : 'public, max-age=300');

// One route, one fixed policy: the add-in calls it from Outlook's runtimes (classic Outlook on
// Windows sends a cross-origin request), with a header and no cookie, so any origin may.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'X-Addin-Key',
  'access-control-max-age': '600',
};

/** The add-in's files and its signature route, outside the authenticated scope. */
export function addinRoutes(deps: {
  /** A valid key's request takes its org's add-in bucket; any other, its address's public bucket (DECISIONS wave 3). */
  throttles: { byOrg: Throttle; byAddress: Throttle };
  outlook: OutlookService;
  baseUrl: string;
  fetchTimeoutMs: number;
}): FastifyPluginAsyncZod {
  const { outlook, baseUrl } = deps;
  const runtimeSource = asset('runtime.js').toString('utf8');
  const commandsSource = asset('commands.html').toString('utf8');
  const icons = new Map(ICON_SIZES.map((size) => [size, asset(`icon-${size}.png`)]));
  const runtimeFor = (addinKey: string) =>
    runtimeSource.replace(/\/\*SIGSVC_CONFIG\*\/ \{[^}]*\}/, `/*SIGSVC_CONFIG*/ ${JSON.stringify({ baseUrl, addinKey, timeoutMs: deps.fetchTimeoutMs })}`);
  const htmlAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

  /** The signature the add-in asks for, with its own CORS policy. */
  const signature = (app: ZodApp): void => {
    app.get(
      '/v1/addin/signature',
      {
        // Its own CORS policy (below), not the web apps' (app.ts), which allows their origins only.
        config: { cors: false },
        onRequest: [
          (_request, reply, done) => {
            reply.headers(CORS);
            done();
          },
          // The key first: a whole office may sit behind one address, so a valid key's request
          // never takes from the address's bucket, and a request without one never from an org's.
          async (request) => {
            const key = request.headers['x-addin-key'];
            try {
              request.addinOrgId = await outlook.orgOfKey(typeof key === 'string' ? key : undefined);
            } catch (err) {
              if (!(err instanceof AppError) || err.code !== 'UNAUTHORIZED') throw err;
              request.addinFailure = err;
            }
          },
          (request, reply, done) => (request.addinOrgId ? deps.throttles.byOrg : deps.throttles.byAddress)(request, reply, done),
          (request, _reply, done) => done(request.addinFailure),
        ],
        schema: {
          operationId: 'getAddinSignature',
          summary: "The sender's signature, for the Outlook add-in (X-Addin-Key)",
          description:
            "A missing or wrong key is 401; an address that is not a live user of the key's org is 404 (another org's user too); " +
            "a signature over 30,000 characters (Outlook's limit) is 413 with `details.reason` `too_long`; past the grace period 402. " +
            "A valid key takes a token from its org's add-in bucket (`ADDIN_RATE_LIMIT_*`, 429 `details.scope` `addin`); " +
            "a request without one from its address's bucket of the public routes (`PUBLIC_RATE_LIMIT_*`, `details.scope` `address`), then 401.",
          tags: ['integrations'],
          security: [{ addinKey: [] }],
          querystring: z.object({
            email: text().trim().min(3).max(320).describe('the From address of the message (or the organizer of the meeting)'),
            compose: z
              .enum(['new', 'reply', 'forward'])
              .default('new')
              .describe('what is being written: replies and forwards take the reply template of the rule that applies (GET/PUT …/rules)'),
          }),
          response: {
            200: z.object({ html: z.string(), text: z.string() }).meta({
              id: 'AddinSignature',
              examples: [{ html: '<table><tr><td><strong>Ada Lovelace</strong><br>Engineer</td></tr></table>', text: 'Ada Lovelace\nEngineer' }],
            }),
            ...errorResponses('NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'PAYMENT_REQUIRED', 'SERVICE_UNAVAILABLE'),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return outlook.signature(request.addinOrgId as string, request.query.email, request.id, request.query.compose);
      },
    );
    app.options('/v1/addin/signature', { schema: { hide: true }, config: { cors: false } }, async (_request, reply) => reply.headers(CORS).code(204).send());
  };

  /** The add-in's files, which Outlook fetches without credentials. */
  const assets = (app: ZodApp): void => {
    app.get(
      '/addin/runtime.js',
      {
        schema: {
          operationId: 'getAddinRuntime',
          summary: "The add-in's runtime (one JavaScript file, no imports)",
          tags: ['integrations'],
          querystring: keyQuery,
          response: { 200: body('text/javascript', "The runtime, with the service's URL and the key filled in"), ...errorResponses() },
        },
      },
      async (request, reply) => {
        reply.type('text/javascript; charset=utf-8').header('cache-control', keyedCache(request.query.key));
        return reply.send(runtimeFor(request.query.key ?? ''));
      },
    );

    app.get(
      '/addin/commands.html',
      {
        schema: {
          operationId: 'getAddinPage',
          summary: "The add-in's page (Outlook on the web, on Mac, new Outlook): Office.js and the runtime",
          tags: ['integrations'],
          querystring: keyQuery,
          response: { 200: body('text/html', "The page: Office.js from Microsoft's CDN, then the runtime"), ...errorResponses() },
        },
      },
      async (request, reply) => {
        const page = commandsSource.replace('__RUNTIME_JS__', htmlAttr(addinUrls(baseUrl, request.query.key).runtimeJs));
        reply
          .type('text/html; charset=utf-8')
          .header('cache-control', keyedCache(request.query.key))
          // Outlook shows this page in its own frame: framing allowed, scripts only from here and Office's CDN.
          .header(
            'content-security-policy',
            "default-src 'none'; script-src 'self' https://appsforoffice.microsoft.com; connect-src 'self'; img-src 'self' https:; style-src 'unsafe-inline'",
          );
        return reply.send(page);
      },
    );

    app.get(
      '/addin/icon-:size(^\\d+).png',
      {
        schema: {
          operationId: 'getAddinIcon',
          summary: "The add-in's icons (image/png)",
          tags: ['integrations'],
          params: z.object({ size: z.enum(ICON_SIZES.map(String) as [string, ...string[]]) }),
          response: {
            200: { description: 'The icon', content: { 'image/png': { schema: z.string().meta({ format: 'binary', contentMediaType: 'image/png' }) } } },
          },
        },
      },
      async (request, reply) => {
        const png = icons.get(Number(request.params.size) as (typeof ICON_SIZES)[number]);
        // The documented schema is the image's bytes; the typed reply only knows strings.
        return (reply as FastifyReply).type('image/png').header('cache-control', 'public, max-age=86400').send(png);
      },
    );

    app.get(
      '/.well-known/microsoft-officeaddins-allowed.json',
      {
        schema: {
          operationId: 'getOfficeAddinsAllowed',
          summary: 'The JavaScript files of add-ins this origin allows to make CORS requests (classic Outlook on Windows)',
          tags: ['integrations'],
          response: {
            200: z.object({ allowed: z.array(z.string()) }).meta({ examples: [{ allowed: ['https://signatures.example.com/addin/runtime.js'] }] }),
          },
        },
      },
      async () => ({ allowed: [addinUrls(baseUrl).runtimeJs] }),
    );
  };

  return async (app) => {
    signature(app);
    assets(app);
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false` turns @fastify/cors (app.ts, the web apps' origins) off for a route with a policy of its own. */
    cors?: false;
  }
  interface FastifyRequest {
    /** The org of the add-in key, once the signature route's hook checked it. */
    addinOrgId?: string;
    /** The add-in key's refusal, answered after the address's bucket took its token. */
    addinFailure?: AppError;
  }
}
