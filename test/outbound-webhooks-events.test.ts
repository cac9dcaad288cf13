// Outbound webhooks (docs/webhooks.md), the events of time and of rendering, against a real HTTP
// receiver on localhost: `signature.rendered` counted per user, template and size within its window;
// `campaign.started|ended` announced once per transition even with two instances on one database;
// a retry due on a service clock far ahead of the database's still comes (the queue claims by the
// database's clock).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

const HOUR = 3_600_000;

async function addEndpoint(server: TestServer, org: TestOrg, url: string, events: string[]) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body as { endpointId: string; secret: string };
}

async function deliveries(server: TestServer, org: TestOrg, endpointId: string) {
  const res = await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/deliveries?limit=200`, { key: org.key });
  assert.equal(res.status, 200, res.text);
  return res.body.items as { deliveryId: string; eventId: string; type: string; state: string; attempts: { responseStatus: number | null }[] }[];
}

const ofType = (r: Receiver, type: string) => r.received.filter((x) => x.json.type === type);

describe('outbound webhooks: signature.rendered, one event per user, template and size within its window', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    // A window no test outlasts: the test ends it (rendered.flush()), so what it counts is certain.
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: { renderedWindowMs: 24 * HOUR } });
    receiver = await startReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  test("renders of one user and template are counted into one event with the first one's correlation id", async () => {
    const org = await createOrg(server);
    await addEndpoint(server, org, receiver.url, ['signature.rendered']);
    const [ann, bob] = [await createUser(server, org, { name: 'Ann' }), await createUser(server, org, { name: 'Bob' })];
    const render = async (userId: string, correlationId: string) => {
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/render/${userId}`, {
        key: org.key,
        body: {},
        headers: { 'x-correlation-id': correlationId },
      });
      assert.equal(res.status, 200, res.text);
      return res.body as { templateId: string; bytes: number };
    };
    const annRendered = await render(ann.userId, 'ann-0');
    for (let i = 1; i < 5; i++) await render(ann.userId, `ann-${i}`);
    const bobRendered = await render(bob.userId, 'bob-0');
    await render(bob.userId, 'bob-1');
    const preview = await server.request('POST', `/v1/orgs/${org.orgId}/templates/preview`, {
      key: org.key,
      body: { userId: ann.userId, html: '<p>{{ user.name }}</p>', text: '' },
    });
    assert.equal(preview.status, 200, preview.text);
    await server.deps.renderedEvents.flush();
    const got = await waitFor(() => {
      const mine = ofType(receiver, 'signature.rendered').filter((x) => [ann.userId, bob.userId].includes(x.json.data.userId));
      return mine.length >= 2 && mine;
    }, 'the two events');
    const byUser = new Map(got.map((x) => [x.json.data.userId, x.json.data]));
    assert.deepEqual(byUser.get(ann.userId), {
      userId: ann.userId,
      templateId: annRendered.templateId,
      bytes: annRendered.bytes,
      correlationId: 'ann-0',
      count: 5,
    });
    assert.deepEqual(byUser.get(bob.userId), {
      userId: bob.userId,
      templateId: bobRendered.templateId,
      bytes: bobRendered.bytes,
      correlationId: 'bob-0',
      count: 2,
    });
    // Another template (the org's new default) is another event, even for the same user in the same window.
    const other = await createTemplate(server, org, { name: 'Other', html: '<p>{{ user.name }} (other)</p>', text: '', isDefault: true });
    await render(ann.userId, 'ann-other');
    await render(ann.userId, 'ann-other-2');
    await server.deps.renderedEvents.flush();
    const again = await waitFor(() => {
      const mine = ofType(receiver, 'signature.rendered').filter((x) => x.json.data.userId === ann.userId);
      return mine.length >= 2 && mine;
    }, "ann's second event");
    assert.equal(again.length, 2);
    const { templateId, count, correlationId } = again[1]?.json.data ?? {};
    assert.deepEqual([templateId, count, correlationId], [other.templateId, 2, 'ann-other']);
  });
});

describe('outbound webhooks: a retry on a service clock a day ahead of the database', () => {
  test('the retry of a failed attempt comes after its wait, not a day later (the drain is queued a delay away on the database clock)', async () => {
    // The service's clock runs, a day ahead of the database's (whose now() the job queue claims by).
    const ahead = () => new Date(Date.now() + 24 * HOUR);
    const server = await startServer(
      { WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' },
      // A wait long enough that the drain which made the first attempt finds its retry not yet due
      // and queues a drain for it (a shorter one is due before that drain ends, and it sends it itself).
      { clock: ahead, webhooks: { retryScheduleMs: [3000, 3000], timeoutMs: 1500 } },
    );
    const r = await startReceiver();
    try {
      r.answer = (n) => ({ status: n === 0 ? 500 : 200 });
      const org = await createOrg(server);
      const { endpointId } = await addEndpoint(server, org, r.url, ['user.created']);
      await createUser(server, org);
      const d = await waitFor(async () => {
        const [first] = await deliveries(server, org, endpointId);
        return first?.state === 'succeeded' && first;
      }, 'the retry to succeed');
      assert.deepEqual(
        d.attempts.map((a) => a.responseStatus),
        [500, 200],
      );
      const ids = r.received.map((x) => x.headers['webhook-id']);
      // (An attempt that timed out on a busy machine may have arrived too: with the same id.)
      assert.ok(ids.length >= 2 && ids.every((id) => id === d.eventId), `the same event again: ${ids}`);
    } finally {
      await r.close();
      await server.close();
    }
  });
});
