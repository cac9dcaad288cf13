// The outbound webhook routes' schemas: the HTTP shapes of resource.ts (docs/webhooks.md).
import { z } from 'zod';
import { nullableTimestamp, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import { EVENT_TYPES } from './events.ts';

const ENDPOINT_ID = '5a1e7c3d-9b2f-4e6a-8d0c-2f4b6a8c0e13';
const DELIVERY_ID = '9c8b7a6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwTSi8dBuyvBQ=';

export const endpointParams = z.object({ orgId: uuid, endpointId: uuid });
export const deliveryParams = endpointParams.extend({ deliveryId: uuid });

const eventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((a) => new Set(a).size === a.length, { message: 'must not name a type twice' })
  .describe('the event types sent to this endpoint');
const url = text().trim().min(1).max(2000).describe('where deliveries are POSTed: https, resolving to public addresses (unless WEBHOOK_ALLOW_PRIVATE=true)');

export const endpointCreateSchema = z
  .strictObject({ url, events: eventTypes, description: text().trim().max(500).optional() })
  .meta({ examples: [{ url: 'https://crm.example.com/hooks/signatures', events: ['signature.rendered', 'user.updated'], description: 'CRM' }] });

export const endpointPatchSchema = z
  .strictObject({
    url: url.optional(),
    events: eventTypes.optional(),
    description: text().trim().max(500).nullable().optional(),
    disabled: z.boolean().optional().describe('false enables a disabled endpoint again (what waited for it is sent)'),
    version: versionField,
  })
  .meta({ examples: [{ events: ['audit.event'], version: 1 }] });

const endpointExample = {
  endpointId: ENDPOINT_ID,
  url: 'https://crm.example.com/hooks/signatures',
  description: 'CRM',
  events: ['signature.rendered', 'user.updated'],
  disabled: false,
  disabledReason: null,
  previousSecretExpiresAt: null,
  version: 1,
  createdAt: EXAMPLE.createdAt,
  updatedAt: EXAMPLE.createdAt,
};

export const endpointSchema = z
  .object({
    endpointId: uuid,
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    disabled: z.boolean(),
    disabledReason: z.string().nullable().describe('why it was disabled: by an admin, or after 3 days without a successful attempt'),
    previousSecretExpiresAt: nullableTimestamp.describe('after a rotation: until when the replaced secret still signs beside the new one'),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookEndpoint', examples: [endpointExample] });

export const createdEndpointSchema = endpointSchema
  .extend({ secret: z.string().describe('the signing secret, shown this once: store it now') })
  .meta({ id: 'CreatedWebhookEndpoint', examples: [{ ...endpointExample, secret: SECRET }] });

export const secretSchema = z
  .object({ secret: z.string().describe('the new signing secret, shown this once'), previousSecretExpiresAt: timestamp })
  .meta({ id: 'WebhookSecret', examples: [{ secret: SECRET, previousSecretExpiresAt: EXAMPLE.updatedAt }] });

const attemptSchema = z.object({
  at: timestamp,
  responseStatus: z.number().int().nullable().describe('null when no answer came'),
  durationMs: z.number().int(),
  error: z.string().nullable().describe('null for a 2xx answer'),
  responseBody: z.string().optional().describe("the start of the receiver's answer (1 KB at most)"),
});

export const deliverySchema = z
  .object({
    deliveryId: uuid,
    eventId: z.string().describe('the `webhook-id` header: the same on every attempt'),
    type: z.string(),
    state: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(attemptSchema),
    nextAttemptAt: nullableTimestamp.describe('when a pending delivery is next attempted'),
    createdAt: timestamp,
  })
  .meta({
    id: 'WebhookDelivery',
    examples: [
      {
        deliveryId: DELIVERY_ID,
        eventId: 'msg_2f1c6a529b7e4d2a8c1e5b0f7e2d9a41',
        type: 'user.updated',
        state: 'pending',
        attempts: [{ at: EXAMPLE.updatedAt, responseStatus: 500, durationMs: 84, error: 'HTTP 500', responseBody: 'internal error' }],
        nextAttemptAt: '2026-01-12T14:05:05.000Z',
        createdAt: EXAMPLE.updatedAt,
      },
    ],
  });
