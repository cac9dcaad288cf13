// Outbound webhooks at their edges (docs/webhooks.md), against real receivers on localhost: a 2xx
// whose body never ends, secrets rotated twice within 24 hours (controlled clock), a redelivery to
// a disabled endpoint, and IPv6 forms of IPv4 addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { manualClock } from './helpers/clock.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { isPublicAddress } from '../src/outbound-webhooks/target.ts';
import { sealedContext } from '../src/secrets/module.ts';

type Delivery = { deliveryId: string; state: string; attempts: { responseStatus: number | null; error: string | null; responseBody?: string }[] };

async function addEndpoint(server: TestServer, org: TestOrg, url: string, events = ['user.created']) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body as { endpointId: string; secret: string; version: number };
}

const base = (org: TestOrg, endpointId: string) => `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}`;

async function deliveries(server: TestServer, org: TestOrg, endpointId: string): Promise<Delivery[]> {
  const res = await server.request('GET', `${base(org, endpointId)}/deliveries`, { key: org.key });
  assert.equal(res.status, 200, res.text);
  return res.body.items;
}

async function sendTest(server: TestServer, org: TestOrg, endpointId: string) {
  const res = await server.request('POST', `${base(org, endpointId)}/test`, { key: org.key });
  assert.equal(res.status, 202, res.text);
}

/** A receiver that answers the status line and the start of a body, and never ends it. */
async function unfinishedBodies(start: (res: ServerResponse) => void): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  const state = { url: '', requests: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      start(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}

describe('outbound webhooks: answers', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' }, { webhooks: { retryScheduleMs: [60_000], timeoutMs: 3_000 } });
  });
  after(() => server.close());

  test('a 2xx whose body never ends is a success: the status line decides, the body is cut at 1 KB', async () => {
    const org = await createOrg(server);
    const oneByte = await unfinishedBodies((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x');
    });
    const endless = await unfinishedBodies((res) => {
      res.writeHead(202);
      res.write(Buffer.alloc(64 * 1024, 'a'));
    });
    try {
      for (const [receiver, status, body] of [
        [oneByte, 200, 'x'],
        [endless, 202, 'a'.repeat(1024)],
      ] as const) {
        const { endpointId } = await addEndpoint(server, org, receiver.url);
        await sendTest(server, org, endpointId);
        const [d] = await waitFor(async () => {
          const log = await deliveries(server, org, endpointId);
          return log[0]?.attempts.length === 1 && log;
        }, 'the attempt recorded');
        assert.deepEqual([d!.state, d!.attempts[0]!.responseStatus, d!.attempts[0]!.error, d!.attempts[0]!.responseBody], ['succeeded', status, null, body]);
        assert.equal(receiver.requests, 1, 'not sent again');
      }
    } finally {
      await oneByte.close();
      await endless.close();
    }
  });

  test('a redelivery to a disabled endpoint answers 409, as its test event does, and nothing is queued', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      const { endpointId, version } = await addEndpoint(server, org, r.url);
      await sendTest(server, org, endpointId);
      const [d] = await waitFor(async () => {
        const log = await deliveries(server, org, endpointId);
        return log[0]?.state === 'succeeded' && log;
      }, 'the delivery');
      const disabled = await server.request('PATCH', base(org, endpointId), { key: org.key, body: { version, disabled: true } });
      assert.equal(disabled.status, 200, disabled.text);
      const retried = await server.request('POST', `${base(org, endpointId)}/deliveries/${d!.deliveryId}/retry`, { key: org.key });
      assert.equal(retried.status, 409, retried.text);
      assert.match(retried.body.error.message, /disabled/);
      assert.equal((await deliveries(server, org, endpointId))[0]!.state, 'succeeded', 'the delivery is not pending again');
      const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=webhookDelivery.retry`, { key: org.key });
      assert.equal(audit.body.items.length, 0);
    } finally {
      await r.close();
    }
  });
});

describe('outbound webhooks: secrets rotated within 24 hours (controlled clock)', () => {
  test('every secret rotated out within the last 24 hours keeps signing; each stops 24 hours after its rotation', async () => {
    const clock = manualClock();
    const server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' }, { clock: clock.now });
    const r = await startReceiver();
    try {
      const org = await createOrg(server);
      const { endpointId, secret: first } = await addEndpoint(server, org, r.url);
      const rotate = async () => {
        const res = await server.request('POST', `${base(org, endpointId)}/rotate-secret`, { key: org.key });
        assert.equal(res.status, 200, res.text);
        return res.body as { secret: string; previousSecretExpiresAt: string };
      };
      const rotatedAt = clock.now().getTime();
      const { secret: second } = await rotate();
      clock.advance(5_000);
      const { secret: third, previousSecretExpiresAt } = await rotate();
      assert.equal(previousSecretExpiresAt, new Date(rotatedAt + 5_000 + 24 * 3600_000).toISOString(), 'the latest rotated-out secret signs until then');
      /** The next test event's signatures, and which secrets made them (the clock is the service's, so signed anew rather than verified against now). */
      const signers = async () => {
        const n = r.received.length;
        await sendTest(server, org, endpointId);
        const x = await waitFor(() => r.received[n], 'the test event');
        const header = String(x.headers['webhook-signature']).split(' ');
        const id = String(x.headers['webhook-id']);
        const at = new Date(Number(x.headers['webhook-timestamp']) * 1000);
        const signed = [first, second, third].filter((s) => header.includes(new Webhook(s).sign(id, at, x.body)));
        return { count: header.length, signed, x };
      };
      const now = await signers();
      assert.deepEqual([now.count, now.signed], [3, [first, second, third]]);
      // Verified as a receiver would, with any one of the three (its timestamp is current: the clock moved 5 s).
      for (const s of [first, second, third])
        assert.equal((new Webhook(s).verify(now.x.body, now.x.headers as Record<string, string>) as any).type, 'webhook.test');
      clock.advance(24 * 3600_000 - 5_000 + 1_000);
      assert.deepEqual(await signers().then((s) => [s.count, s.signed]), [2, [second, third]], 'the first, 24 h after its rotation, no more');
      clock.advance(5_000);
      assert.deepEqual(await signers().then((s) => [s.count, s.signed]), [1, [third]], 'the second too');
      // A rotation now keeps only the one secret still signing.
      const { secret: fourth } = await rotate();
      const after = await signers();
      assert.equal(after.count, 2);
      assert.ok(
        String(after.x.headers['webhook-signature']).includes(
          new Webhook(fourth).sign(String(after.x.headers['webhook-id']), new Date(Number(after.x.headers['webhook-timestamp']) * 1000), after.x.body),
        ),
      );
      assert.deepEqual(after.signed, [third]);
    } finally {
      await r.close();
      await server.close();
    }
  });
});

describe('outbound webhooks: secrets sealed before several old ones were kept', () => {
  test('the one old secret (its end in previous_until) still signs until then, and a rotation keeps it', async () => {
    const clock = manualClock();
    const server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' }, { clock: clock.now });
    const r = await startReceiver();
    try {
      const org = await createOrg(server);
      const { endpointId, secret: current } = await addEndpoint(server, org, r.url);
      const old = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      // As an earlier version sealed a rotation: `previous` one secret, its end the row's previous_until.
      const sealed = server.deps.secrets.seal(JSON.stringify({ current, previous: old }), sealedContext('webhook', org.orgId));
      const until = new Date(clock.now().getTime() + 3600_000);
      await server.deps.database.db
        .updateTable('outbound_endpoints')
        .set({ sealed_secrets: sealed, previous_until: until })
        .where('id', '=', endpointId)
        .execute();
      const verifies = async (secrets: string[]) => {
        const n = r.received.length;
        await sendTest(server, org, endpointId);
        const x = await waitFor(() => r.received[n], 'the test event');
        for (const s of secrets) new Webhook(s).verify(x.body, x.headers as Record<string, string>);
        return String(x.headers['webhook-signature']).split(' ').length;
      };
      assert.equal(await verifies([current, old]), 2);
      const rotated = await server.request('POST', `${base(org, endpointId)}/rotate-secret`, { key: org.key });
      assert.equal(rotated.status, 200, rotated.text);
      assert.equal(await verifies([rotated.body.secret, current, old]), 3);
    } finally {
      await r.close();
      await server.close();
    }
  });
});

describe('outbound webhooks: IPv6 forms of IPv4 addresses', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ DATABASE_URL: 'memory://' });
  });
  after(() => server.close());

  test('IPv4-compatible, mapped, translated, NAT64 and 6to4 addresses are what their IPv4 address is', async () => {
    for (const a of [
      '::7f00:1',
      '::127.0.0.1',
      '::10.0.0.1',
      '::ffff:127.0.0.1',
      '::ffff:0:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
      '::',
      '::1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(a), true, a);
    const org = await createOrg(server);
    for (const url of ['https://[::127.0.0.1]/hooks', 'https://[64:ff9b::7f00:1]/hooks', 'https://[2002:a9fe:a9fe::1]/latest']) {
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events: ['audit.event'] } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.equal(res.body.error.details.field, 'body.url');
    }
  });
});
