// A payment-provider event read from the bytes that were signed. The route reads deliveries with
// it and replays read stored events with it, so both see the same event.
import { z } from 'zod';
import { isStorable } from '../lib/text.ts';

export interface ProviderEvent {
  id: string;
  type: string;
  /** Unix seconds; absent in hand-made events. */
  created?: number | undefined;
  object: Record<string, any>;
}

/** What the provider posts (Stripe's event envelope); also the webhook's request body in the OpenAPI document. */
export const eventSchema = z
  .object({
    id: z.string().min(1).max(255),
    type: z.string().min(1).max(255).describe('e.g. `checkout.session.completed`, `customer.subscription.updated`, `invoice.paid`'),
    created: z.number().int().optional().describe('Unix seconds; events apply in this order'),
    data: z.object({ object: z.record(z.string(), z.unknown()).describe('the Stripe object the event is about') }),
  })
  .meta({
    id: 'PaymentProviderEvent',
    examples: [
      {
        id: 'evt_1QxYz2AbCdEfGh',
        type: 'checkout.session.completed',
        created: 1767225600,
        data: {
          object: {
            object: 'checkout.session',
            client_reference_id: '7d0f6c3e-2b8a-4f1e-9c5d-3a6b1e8f0c27',
            customer: 'cus_R4nd0mCustomer',
            subscription: 'sub_1QxYz2AbCdEfGh',
          },
        },
      },
    ],
  });

/** The same text with what PostgreSQL refuses replaced by U+FFFD, for ids, types and messages. */
export function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').toWellFormed();
}

export type ParsedEvent = { ok: true; event: ProviderEvent } | { ok: false; field: string; message: string };

export function parseEvent(raw: Uint8Array): ParsedEvent {
  let json: unknown;
  try {
    // JSON.parse does not recurse on the stack, so deep nesting parses (JSON.stringify would not).
    json = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    return { ok: false, field: 'body', message: 'The body is not valid JSON.' };
  }
  const parsed = eventSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['body', ...(issue?.path ?? [])].join('.');
    return { ok: false, field, message: `${field}: ${issue?.message ?? 'is invalid'}` };
  }
  const e = parsed.data;
  // The id is the dedup key and the type a label: a signed event is kept even when they hold
  // what the database refuses (the raw body keeps the original).
  return { ok: true, event: { id: storable(e.id), type: storable(e.type), created: e.created, object: e.data.object } };
}

/** A field the event needs holds text the database cannot store: the event fails, kept for replay. */
export class EventDataError extends Error {}

/** A string field of the event object, refused when the database could not store it. */
export function textField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (!isStorable(value)) throw new EventDataError(`${field} holds a NUL character or a lone surrogate, which the database cannot store`);
  return value;
}
