// Sends payment-provider events signed the way the provider signs them, with Stripe's own SDK.
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { TestResponse, TestServer } from './server.ts';
import { staffAccount } from './fixtures.ts';
import { oidcClient, signIn } from './browser.ts';
import { totpCode } from '../../src/idp/totp.ts';

const stripe = new Stripe('sk_test_for_signing_only');

export const SECRET = 'whsec_test_secret';

export function signedHeader(payload: string, opts: { secret?: string; timestamp?: number } = {}): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, ...(opts.timestamp ? { timestamp: opts.timestamp } : {}) });
}

export function event(type: string, object: Record<string, unknown>, over: { id?: string; created?: number } = {}) {
  return {
    id: over.id ?? `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type,
    created: over.created ?? Math.floor(Date.now() / 1000),
    data: { object },
  };
}

export async function deliver(
  server: TestServer,
  evt: unknown,
  opts: { secret?: string; timestamp?: number; header?: string | null; rawBody?: string; headers?: Record<string, string>; headerName?: string } = {},
): Promise<TestResponse> {
  const payload = opts.rawBody ?? JSON.stringify(evt);
  const headers: Record<string, string> = { ...opts.headers };
  const header = opts.header === undefined ? signedHeader(payload, opts) : opts.header;
  if (header !== null) headers[opts.headerName ?? 'provider-signature'] = header;
  return server.request('POST', '/v1/webhooks/payment-provider', { rawBody: payload, headers });
}

export function subscription(
  orgId: string,
  over: { status?: string; quantity?: number; customer?: string; lookupKey?: string; priceId?: string; periodEnd?: number } = {},
) {
  return {
    id: 'sub_test',
    object: 'subscription',
    customer: over.customer ?? `cus_${orgId.slice(0, 8)}`,
    status: over.status ?? 'active',
    metadata: { orgId },
    items: {
      data: [
        {
          quantity: over.quantity ?? 10,
          current_period_end: over.periodEnd ?? Math.floor(Date.now() / 1000) + 30 * 86400,
          price: { id: over.priceId ?? 'price_pro_v1', lookup_key: over.lookupKey ?? 'pro', product: 'prod_pro' },
        },
      ],
    },
  };
}

/** A staff member's ID token (signed in with TOTP through the admin client), for the staff event routes. */
export async function staffToken(server: TestServer): Promise<string> {
  const staff = await staffAccount(server);
  const started = await server.deps.signIn.enrolment(staff.userId);
  if (!started) throw new Error('no TOTP enrolment for the staff account');
  await server.deps.signIn.confirmEnrolment(staff.userId, totpCode(started.secret, Date.now() - 30_000));
  const admin = await oidcClient(server.deps.config.authUrl, 'admin-client-dev', server.deps.config.adminUrl);
  return (await signIn(admin, { ...staff, username: staff.email, otp: () => totpCode(started.secret) })).tokens.id_token as string;
}

/** The stored status of each event (applied, ignored, pending…), in the order given; undefined for one not stored. */
export async function statusesOf(server: TestServer, ids: string[]): Promise<(string | undefined)[]> {
  const rows = await server.deps.database.db.selectFrom('webhook_events').select(['id', 'status']).where('id', 'in', ids).execute();
  return ids.map((id) => rows.find((r) => r.id === id)?.status);
}
