// `POST /v1/webhooks/payment-provider`: verify the signature over the raw bytes, then parse, dedup
// and apply. Answers exactly the table of docs/guide.md, "Billing states".
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { validatorCompiler as zodValidator } from 'fastify-type-provider-zod';
import { AppError } from '../kernel/errors.ts';
import { errorEnvelope } from '../http/schemas.ts';
import type { BillingService } from '../billing/module.ts';
import { eventSchema, parseEvent } from '../billing/module.ts';
import { verifySignature } from './signature.ts';
import type { Metrics, WebhookOutcome } from '../metrics/metrics.ts';

export function webhookRoutes(deps: {
  billing: BillingService;
  secret: string | undefined;
  toleranceS: number;
  clock: () => Date;
  metrics: Pick<Metrics, 'webhookEvent'>;
}): FastifyPluginAsync {
  const refuse = (outcome: WebhookOutcome, err: AppError) => {
    deps.metrics.webhookEvent(outcome);
    return err;
  };
  return async (app) => {
    // This route only: keep the body as bytes, since the signature covers them exactly (an event
    // nested however deep is kept as sent: src/billing/event.ts).
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    // The body schema describes the event for the OpenAPI document but is not applied here: the
    // signature is checked first, over the raw bytes, then the handler parses them (parseEvent), so
    // an unsigned body is a 401 whatever it holds. The headers are validated as on any route.
    app.setValidatorCompiler<z.ZodType>((part) => (part.httpPart === 'body' ? (data: unknown) => ({ value: data }) : zodValidator(part)));

    app.post(
      '/v1/webhooks/payment-provider',
      {
        schema: {
          operationId: 'receivePaymentProviderEvent',
          summary: 'Payment-provider events (Stripe format, signed)',
          description:
            'Authenticated by `Provider-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256 of `<t>.<raw body>`), or the same as `Stripe-Signature`, not by a token. Answers `{received: true, kind: "patch"}` when processed, `{received: true, deduplicated: true}` for an id seen within the dedup window, `{received: true}` when handling failed (the event is kept for replay) or when the event waits for an event that links its customer to an org.',
          tags: ['billing'],
          body: eventSchema,
          headers: z.object({
            'provider-signature': z
              .string()
              .optional()
              .meta({ examples: ['t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'] }),
            'stripe-signature': z.string().optional().describe("the same scheme under Stripe's header name; used when Provider-Signature is absent"),
          }),
          response: {
            200: z
              .object({ received: z.literal(true), kind: z.literal('patch').optional(), deduplicated: z.literal(true).optional() })
              .meta({ examples: [{ received: true, kind: 'patch' }] }),
            400: errorEnvelope,
            401: errorEnvelope,
            503: errorEnvelope,
          },
        },
      },
      async (request) => {
        if (!deps.secret)
          throw refuse('unconfigured', new AppError('SERVICE_UNAVAILABLE', 'Payment-provider webhooks are not configured (WEBHOOK_SECRET is unset).'));
        const raw = request.body;
        if (!Buffer.isBuffer(raw)) throw refuse('bad_request', new AppError('BAD_REQUEST', 'The body must be JSON.', { details: { field: 'body' } }));
        // Stripe's own header name too, so a Stripe account can point straight at this route.
        const header = request.headers['provider-signature'] ?? request.headers['stripe-signature'];
        const check = verifySignature(raw, typeof header === 'string' ? header : undefined, deps.secret, {
          toleranceS: deps.toleranceS,
          nowS: Math.floor(deps.clock().getTime() / 1000),
        });
        if (!check.ok) throw refuse('invalid_signature', new AppError('UNAUTHORIZED', `The event signature is not valid: ${check.reason}.`));

        const parsed = parseEvent(raw);
        if (!parsed.ok) throw refuse('bad_request', new AppError('BAD_REQUEST', parsed.message, { details: { field: parsed.field } }));
        const result = await deps.billing.intake(parsed.event, raw, request.id);
        deps.metrics.webhookEvent(result);
        if (result === 'duplicate') return { received: true as const, deduplicated: true as const };
        if (result === 'processed') return { received: true as const, kind: 'patch' as const };
        return { received: true as const };
      },
    );
  };
}
