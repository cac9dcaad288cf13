// `POST /v1/webhooks/payment-provider` (spec section 4 row 7): verify the signature over the raw
// bytes, then parse, dedup and apply. Answers exactly the spec's table.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { errorEnvelope } from '../http/schemas.ts';
import type { BillingService } from '../billing/service.ts';
import { verifySignature } from './signature.ts';

const eventSchema = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: z.number().int().optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export function webhookRoutes(deps: {
  billing: BillingService;
  secret: string | undefined;
  toleranceS: number;
  clock: () => Date;
}): FastifyPluginAsync {
  return async (app) => {
    // This route only: keep the body as bytes, since the signature covers them exactly.
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    app.post(
      '/v1/webhooks/payment-provider',
      {
        schema: {
          summary: 'Payment-provider events (Stripe format, signed)',
          description:
            'Authenticated by `Provider-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256 of `<t>.<raw body>`), not by a token. Answers `{received: true, kind: "patch"}` when processed, `{received: true, deduplicated: true}` for an id seen within the dedup window, `{received: true}` when handling failed (the event is kept for replay).',
          tags: ['billing'],
          headers: z.object({ 'provider-signature': z.string().optional() }),
          response: {
            200: z.object({ received: z.literal(true), kind: z.literal('patch').optional(), deduplicated: z.literal(true).optional() }),
            400: errorEnvelope,
            401: errorEnvelope,
            503: errorEnvelope,
          },
        },
      },
      async (request) => {
        if (!deps.secret) throw new AppError('SERVICE_UNAVAILABLE', 'Payment-provider webhooks are not configured (WEBHOOK_SECRET is unset).');
        const raw = request.body;
        if (!Buffer.isBuffer(raw)) throw new AppError('BAD_REQUEST', 'The body must be JSON.', { details: { field: 'body' } });
        const header = request.headers['provider-signature'];
        const check = verifySignature(raw, typeof header === 'string' ? header : undefined, deps.secret, {
          toleranceS: deps.toleranceS,
          nowS: Math.floor(deps.clock().getTime() / 1000),
        });
        if (!check.ok) throw new AppError('UNAUTHORIZED', `The event signature is not valid: ${check.reason}.`);

        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new AppError('BAD_REQUEST', 'The body is not valid JSON.', { details: { field: 'body' } });
        }
        const parsed = eventSchema.safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = ['body', ...(issue?.path ?? [])].join('.');
          throw new AppError('BAD_REQUEST', `${field}: ${issue?.message ?? 'is invalid'}`, { details: { field } });
        }
        const e = parsed.data;
        const result = await deps.billing.intake({ id: e.id, type: e.type, created: e.created, object: e.data.object }, json, request.id);
        if (result === 'duplicate') return { received: true as const, deduplicated: true as const };
        if (result === 'failed') return { received: true as const };
        return { received: true as const, kind: 'patch' as const };
      },
    );
  };
}
