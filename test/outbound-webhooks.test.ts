// Outbound webhooks (issue 30; docs/webhooks.md) against a real HTTP receiver on localhost:
// endpoint management, every event type, Standard Webhooks signatures verified with the
// `standardwebhooks` library, retries with the same webhook-id, timeouts, rotation, disabling
// after 3 days (controlled clock), one org's slow endpoint beside another org's, SSRF refusals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { manualClock } from './helpers/clock.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { deliver, event, subscription } from './helpers/payments.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { recordFailedDeployment } from '../src/outbound-webhooks/events.ts';
import { isPublicAddress } from '../src/outbound-webhooks/target.ts';
import { outboundRepo } from '../src/store/repositories/outbound-webhooks.ts';

const FAST = { retryScheduleMs: [50, 50, 50, 50, 50, 50, 50], timeoutMs: 1500 };
const ALL = [
  'signature.rendered',
  'audit.event',
  'user.created',
  'user.updated',
  'user.deleted',
  'template.created',
  'template.updated',
  'template.deleted',
  'deployment.failed',
  'org.subscription_status_changed',
];

async function addEndpoint(server: TestServer, org: TestOrg, url: string, events: string[] = ALL) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body as { endpointId: string; secret: string; version: number };
}

async function deliveries(server: TestServer, org: TestOrg, endpointId: string) {
  const res = await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/deliveries?limit=200`, { key: org.key });
  assert.equal(res.status, 200, res.text);
  return res.body.items as { deliveryId: string; eventId: string; type: string; state: string; attempts: any[]; nextAttemptAt: string | null }[];
}

const ofType = (r: Receiver, type: string) => r.received.filter((x) => x.json.type === type);
const until = (r: Receiver, type: string, n = 1) => waitFor(() => ofType(r, type).length >= n && ofType(r, type), `${n} ${type} deliveries`);

describe('outbound webhooks', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: FAST });
    receiver = await startReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  test('endpoints: created with a secret shown once, listed, changed with version, deleted; audited', async () => {
    const org = await createOrg(server);
    const created = await addEndpoint(server, org, receiver.url, ['audit.event']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.ok(Buffer.from(created.secret.slice(6), 'base64').length >= 24);
    const base = `/v1/orgs/${org.orgId}/webhook-endpoints`;
    const list = await server.request('GET', base, { key: org.key });
    assert.equal(list.body.items.length, 1);
    assert.equal(list.body.items[0].secret, undefined, 'the secret is never shown again');
    const one = await server.request('GET', `${base}/${created.endpointId}`, { key: org.key });
    assert.deepEqual([one.body.url, one.body.events, one.body.disabled], [receiver.url, ['audit.event'], false]);
    const stale = await server.request('PATCH', `${base}/${created.endpointId}`, { key: org.key, body: { version: 9, disabled: true } });
    assert.equal(stale.status, 409);
    const patched = await server.request('PATCH', `${base}/${created.endpointId}`, {
      key: org.key,
      body: { version: 1, events: ['user.created'], disabled: true },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(
      [patched.body.events, patched.body.disabled, patched.body.disabledReason, patched.body.version],
      [['user.created'], true, 'Disabled by an admin.', 2],
    );
    const disabledTest = await server.request('POST', `${base}/${created.endpointId}/test`, { key: org.key });
    assert.equal(disabledTest.status, 409, 'a disabled endpoint gets no test event');
    const bad = await server.request('POST', base, { key: org.key, body: { url: receiver.url, events: ['no.such'] } });
    assert.equal(bad.status, 400);
    assert.equal((await server.request('DELETE', `${base}/${created.endpointId}`, { key: org.key })).status, 204);
    assert.equal((await server.request('GET', `${base}/${created.endpointId}`, { key: org.key })).status, 404);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?limit=200`, { key: org.key });
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    for (const a of ['webhookEndpoint.create', 'webhookEndpoint.update', 'webhookEndpoint.delete']) assert.ok(actions.includes(a), a);
  });

  test('every event type arrives, signed per Standard Webhooks (verified with standardwebhooks)', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      const { secret, endpointId } = await addEndpoint(server, org, r.url);
      const user = await createUser(server, org);
      await until(r, 'user.created');
      const got = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}`, { key: org.key });
      const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${user.userId}`, {
        key: org.key,
        body: { version: got.body.version, title: 'Head of hooks' },
        headers: { 'x-correlation-id': 'corr-hooks-1' },
      });
      assert.equal(patched.status, 200, patched.text);
      const template = await createTemplate(server, org);
      const tpl = await server.request('GET', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, { key: org.key });
      await server.request('PATCH', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, {
        key: org.key,
        body: { version: tpl.body.version, name: 'renamed' },
      });
      const rendered = await server.request('POST', `/v1/orgs/${org.orgId}/render/${user.userId}`, { key: org.key, body: {} });
      assert.equal(rendered.status, 200, rendered.text);
      // The Outlook add-in serves signatures too; an editor preview is not a signature served.
      const addinKey = (await server.request('POST', `/v1/orgs/${org.orgId}/integrations/outlook/rotate-key`, { key: org.key })).body.addinKey as string;
      const addin = await server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(user.email)}&compose=new`, {
        headers: { 'x-addin-key': addinKey },
      });
      assert.equal(addin.status, 200, addin.text);
      const preview = await server.request('POST', `/v1/orgs/${org.orgId}/templates/preview`, {
        key: org.key,
        body: { userId: user.userId, html: '<p>{{ user.name }}</p>', text: '' },
      });
      assert.equal(preview.status, 200, preview.text);
      const looked = await server.request('GET', `/v1/orgs/${org.orgId}/users/${user.userId}/signature?preview=true`, { key: org.key });
      assert.equal(looked.status, 200, looked.text);
      await server.request('DELETE', `/v1/orgs/${org.orgId}/templates/${template.templateId}`, { key: org.key });
      await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${user.userId}`, { key: org.key });
      await recordFailedDeployment(
        server.deps.database.db,
        { orgId: org.orgId, userId: user.userId, target: 'gmail', state: 'failed', error: 'refused by the mailbox' },
        new Date(),
      );
      const customer = `cus_${org.orgId.slice(0, 8)}`;
      assert.equal(
        (await deliver(server, event('checkout.session.completed', { customer, client_reference_id: org.orgId, subscription: 'sub_test' }))).status,
        200,
      );
      assert.equal((await deliver(server, event('customer.subscription.updated', subscription(org.orgId, { status: 'past_due' })))).status, 200);

      for (const type of ALL) await until(r, type);
      const updated = ofType(r, 'user.updated')[0]!;
      assert.deepEqual([updated.json.data.userId, updated.json.data.title, updated.json.data.correlationId], [user.userId, 'Head of hooks', 'corr-hooks-1']);
      assert.equal(ofType(r, 'user.deleted')[0]!.json.data.userId, user.userId);
      assert.equal(ofType(r, 'template.updated')[0]!.json.data.name, 'renamed');
      const served = await until(r, 'signature.rendered', 2);
      const byCorrelation = new Map(served.map((x) => [x.json.data.correlationId, x.json.data]));
      const signature = byCorrelation.get(rendered.headers.get('x-correlation-id'));
      assert.deepEqual(
        [signature.userId, signature.templateId, signature.bytes, signature.count],
        [user.userId, rendered.body.templateId, rendered.body.bytes, 1],
      );
      assert.equal(byCorrelation.get(addin.headers.get('x-correlation-id'))?.userId, user.userId, 'the add-in');
      assert.equal(served.length, 2, 'two signatures served, the previews not among them');
      assert.equal(ofType(r, 'deployment.failed')[0]!.json.data.error, 'refused by the mailbox');
      // Two changes, two events (in any order: deliveries run side by side), each with the status it made.
      await waitFor(() => ofType(r, 'org.subscription_status_changed').length >= 2, 'both status changes');
      assert.deepEqual(
        ofType(r, 'org.subscription_status_changed')
          .map((x) => x.json.data.subscriptionStatus)
          .sort(),
        ['active', 'past_due'],
      );
      // audit.event carries the entry exactly as GET …/audit lists it.
      const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=user.update`, { key: org.key });
      const entry = ofType(r, 'audit.event').find((x) => x.json.data.action === 'user.update')!;
      assert.deepEqual(entry.json.data, audit.body.items[0]);

      const wh = new Webhook(secret);
      const ids = new Set<string>();
      for (const x of r.received) {
        const headers = {
          'webhook-id': String(x.headers['webhook-id']),
          'webhook-timestamp': String(x.headers['webhook-timestamp']),
          'webhook-signature': String(x.headers['webhook-signature']),
        };
        assert.deepEqual(wh.verify(x.body, headers), x.json);
        assert.match(headers['webhook-id'], /^msg_/);
        ids.add(headers['webhook-id']);
        assert.deepEqual(Object.keys(x.json), ['type', 'timestamp', 'data']);
      }
      // Each event has its own webhook-id (an attempt that timed out on a busy machine may arrive twice, with the same id).
      // The receiver has every event before the service has written the last outcome: wait for the log to say so.
      const log = await waitFor(async () => {
        const items = await deliveries(server, org, endpointId);
        return items.length >= ALL.length && items.every((d) => d.state !== 'pending') && items;
      }, 'every delivery finished');
      assert.deepEqual([...ids].sort(), log.map((d) => d.eventId).sort());
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(r.received[0]!.body, r.received[0]!.headers as Record<string, string>),
      );
      const notAtOnce = log.filter((d) => d.state !== 'succeeded' || d.attempts[0].responseStatus !== 200);
      assert.deepEqual(notAtOnce, [], 'every delivery succeeded at its first attempt');
    } finally {
      await r.close();
    }
  });

  test('a 500 then a 200: the same event again with the same webhook-id; a timeout is a failure', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      r.answer = (n) => (n === 0 ? { status: 500 } : n === 1 ? { status: 200, delayMs: 4_000 } : { status: 200 });
      const { endpointId } = await addEndpoint(server, org, r.url, ['user.created']);
      await createUser(server, org);
      await until(r, 'user.created', 3);
      const [a, b, c] = r.received;
      assert.equal(a!.headers['webhook-id'], b!.headers['webhook-id']);
      assert.equal(b!.headers['webhook-id'], c!.headers['webhook-id']);
      const [d] = await waitFor(async () => {
        const log = await deliveries(server, org, endpointId);
        return log[0]?.state === 'succeeded' && log;
      }, 'the delivery to succeed');
      assert.deepEqual(
        d!.attempts.map((x) => [x.responseStatus, x.error === null]),
        [
          [500, false],
          [null, false],
          [200, true],
        ],
      );
      assert.match(d!.attempts[1].error, /no answer within/);
      assert.equal(d!.eventId, a!.headers['webhook-id']);
      // Redelivery on demand: the same id once more.
      const retried = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/deliveries/${d!.deliveryId}/retry`, { key: org.key });
      assert.equal(retried.status, 202, retried.text);
      await until(r, 'user.created', 4);
      assert.equal(r.received[3]!.headers['webhook-id'], a!.headers['webhook-id']);
    } finally {
      await r.close();
    }
  });

  test('every attempt failing: failed after the last retry of the schedule', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      r.answer = () => ({ status: 503 });
      const { endpointId } = await addEndpoint(server, org, r.url, ['user.created']);
      await createUser(server, org);
      const [d] = await waitFor(async () => {
        const log = await deliveries(server, org, endpointId);
        return log[0]?.state === 'failed' && log;
      }, 'the delivery to fail');
      assert.equal(d!.attempts.length, 1 + FAST.retryScheduleMs.length);
      assert.equal(d!.nextAttemptAt, null);
    } finally {
      await r.close();
    }
  });

  test('rotation: during the overlap both secrets sign, and each verifies', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      const { endpointId, secret: old } = await addEndpoint(server, org, r.url, ['user.created']);
      const rotated = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/rotate-secret`, { key: org.key });
      assert.equal(rotated.status, 200, rotated.text);
      const fresh = rotated.body.secret as string;
      assert.notEqual(fresh, old);
      const test = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/test`, { key: org.key });
      assert.equal(test.status, 202, test.text);
      const [x] = await until(r, 'webhook.test');
      assert.equal(String(x!.headers['webhook-signature']).split(' ').length, 2);
      for (const s of [old, fresh]) assert.equal((new Webhook(s).verify(x!.body, x!.headers as Record<string, string>) as any).type, 'webhook.test');
    } finally {
      await r.close();
    }
  });

  test('finished deliveries and their events are purged after the retention; pending ones stay', async () => {
    const org = await createOrg(server);
    const r = await startReceiver();
    try {
      const { endpointId } = await addEndpoint(server, org, r.url, ['user.created']);
      await createUser(server, org);
      await waitFor(async () => (await deliveries(server, org, endpointId))[0]?.state === 'succeeded', 'the delivery');
      const db = server.deps.database.db;
      // A cut-off before it: nothing goes. After it: the delivery and its event go.
      await outboundRepo.purgeFinished(db, new Date(Date.now() - 3600_000));
      assert.equal((await deliveries(server, org, endpointId)).length, 1);
      await outboundRepo.purgeFinished(db, new Date(Date.now() + 3600_000));
      assert.equal((await deliveries(server, org, endpointId)).length, 0);
      const events = await db.selectFrom('outbound_events').select('id').where('org_id', '=', org.orgId).execute();
      assert.equal(events.length, 0);
    } finally {
      await r.close();
    }
  });

  test("an org's slow endpoint does not hold back another org's deliveries", async () => {
    // A server whose attempts wait 30 s for an answer: the slow endpoint's held attempts stay in
    // flight throughout (with the suite's 1.5-s timeout they timed out and waited for their retry, and
    // on a loaded machine the other org's delivery fell in such a gap, with none in flight). On a
    // database of its own: on the file's shared one, the suite's server, whose queue claims from the
    // same jobs table, could take the slow endpoint's drain and send it with its 1.5-s timeout (CI
    // failed so once more after the 30-s server alone).
    const own = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' }, { webhooks: { retryScheduleMs: [60_000], timeoutMs: 30_000 } });
    const slowOrg = await createOrg(own);
    const otherOrg = await createOrg(own);
    const slow = await startReceiver();
    const fast = await startReceiver();
    try {
      slow.answer = () => 'hold';
      const { endpointId } = await addEndpoint(own, slowOrg, slow.url, ['user.created']);
      // The slow endpoint does not answer. One delivery first, held in flight; then seven more, due
      // while it is: the worker that holds the first takes them under the same claim, up to four in
      // flight (until the fourteenth session they waited behind the first, up to the timeout).
      await createUser(own, slowOrg);
      await waitFor(() => slow.held === 1, 'the first delivery held by the slow endpoint');
      for (let i = 0; i < 7; i++) await createUser(own, slowOrg);
      await waitFor(() => slow.held === 4 && slow.received.length === 4, 'four deliveries held by the slow endpoint, the first still among them');
      let slowBusy = -1;
      fast.answer = () => {
        slowBusy = slow.inFlight;
        return { status: 200 };
      };
      await addEndpoint(own, otherOrg, fast.url, ['user.created']);
      await createUser(own, otherOrg);
      await until(fast, 'user.created');
      assert.ok(slowBusy > 0, 'the other org was served while the slow endpoint had deliveries in flight');
      const log = await deliveries(own, slowOrg, endpointId);
      assert.ok(log.length === 8 && log.every((d) => d.state !== 'succeeded'));
      // Answered, the held ones make room: the other 4, due now, go at once, never more.
      slow.release();
      await waitFor(() => slow.held === 4 && slow.received.length === 8, 'the other four deliveries held by the slow endpoint');
      assert.equal(slow.maxInFlight, 4, 'never more than 4 in flight to one endpoint');
    } finally {
      slow.release();
      await own.close();
      await slow.close();
      await fast.close();
    }
  });

  test('security: no credentials 401, another org 403, a member 403', async () => {
    const org = await createOrg(server);
    const other = await createOrg(server);
    const { endpointId } = await addEndpoint(server, org, receiver.url, ['audit.event']);
    const base = `/v1/orgs/${org.orgId}/webhook-endpoints`;
    assert.equal((await server.request('GET', base)).status, 401);
    assert.equal((await server.request('GET', `${base}/${endpointId}`, { key: other.key })).status, 403);
    const mine = await server.request('GET', `/v1/orgs/${other.orgId}/webhook-endpoints/${endpointId}`, { key: other.key });
    assert.equal(mine.status, 404, "another org's endpoint id finds nothing");
    const { authUrl, appUrl, stage } = server.deps.config;
    const member = await userWithPassword(server, org, 'member');
    const token = (await signIn(await oidcClient(authUrl, `app-client-${stage}`, appUrl), { username: member.email, password: member.password })).tokens
      .id_token as string;
    const refused = await server.request('POST', base, { token, body: { url: receiver.url, events: ['audit.event'] } });
    assert.equal(refused.status, 403);
  });
});

describe('outbound webhooks: disabling after 3 days without success (controlled clock)', () => {
  test('an endpoint whose attempts all failed for 3 days is disabled, with an audit entry', async () => {
    const clock = manualClock();
    const server = await startServer(
      { WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' },
      { webhooks: { retryScheduleMs: [60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000], timeoutMs: 400 }, clock: clock.now },
    );
    const r = await startReceiver();
    try {
      r.answer = () => ({ status: 500 });
      const org = await createOrg(server);
      const { endpointId } = await addEndpoint(server, org, r.url, ['user.created']);
      await createUser(server, org);
      await until(r, 'user.created', 1);
      await waitFor(async () => (await deliveries(server, org, endpointId))[0]?.attempts.length === 1, 'the first attempt recorded');
      clock.advance(2 * 24 * 3600_000);
      await createUser(server, org);
      await until(r, 'user.created', 2);
      // (The first event's retry, due by now, is attempted beside it.)
      await waitFor(async () => {
        const log = await deliveries(server, org, endpointId);
        return log.length === 2 && log.every((d) => d.attempts.length >= 1);
      }, 'the second event attempted');
      let ep = await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}`, { key: org.key });
      assert.equal(ep.body.disabled, false, 'two days of failures are not enough');
      clock.advance(24 * 3600_000 + 1000);
      await createUser(server, org);
      await until(r, 'user.created', 3);
      ep = await waitFor(async () => {
        const got = await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}`, { key: org.key });
        return got.body.disabled && got;
      }, 'the endpoint disabled');
      assert.match(ep.body.disabledReason, /3 days/);
      const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=webhookEndpoint.disable`, { key: org.key });
      assert.equal(audit.body.items[0].targetId, endpointId);
      // Disabled: new events are not delivered to it.
      const before = r.received.length;
      await createUser(server, org);
      const log = await deliveries(server, org, endpointId);
      assert.equal(log.length, 3);
      assert.equal(r.received.length, before);
    } finally {
      await r.close();
      await server.close();
    }
  });
});

describe('outbound webhooks: where deliveries may go', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ DATABASE_URL: 'memory://' });
  });
  after(() => server.close());

  test('without WEBHOOK_ALLOW_PRIVATE: http and private or loopback addresses refused with 400', async () => {
    const org = await createOrg(server);
    for (const url of [
      'http://93.184.215.14/hooks',
      'https://127.0.0.1/hooks',
      'https://10.1.2.3/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest',
      'https://[::ffff:192.168.0.1]/x',
      'https://localhost/hooks',
      'https://user:pw@93.184.215.14/x',
    ]) {
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events: ['audit.event'] } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.equal(res.body.error.details.field, 'body.url');
    }
    const ok = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, {
      key: org.key,
      body: { url: 'https://93.184.215.14/hooks', events: ['deployment.failed'] },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  test('public and private addresses told apart', () => {
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '203.0.114.1']) assert.equal(isPublicAddress(a), true, a);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
  });
});
