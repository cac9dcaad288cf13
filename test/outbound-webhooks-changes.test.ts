// Outbound webhooks while an endpoint changes under a batch being sent (a hostile review,
// 2026-11-26): a batch read its endpoint once, so deliveries went on to a URL after it was
// changed, or to an endpoint after it was deleted, for as long as the batch lasted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

describe('outbound webhooks: an endpoint changed while its batch is sent', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: { retryScheduleMs: [60_000], timeoutMs: 5_000 } });
  });
  after(() => server.close());

  async function slowEndpoint(org: TestOrg, receiver: Receiver) {
    // The receiver holds its answers until the test releases them, and 4 are in flight at once: so
    // exactly 4 of the 8 deliveries are sent before the change, however slow the machine (with a
    // 1.5-s answer instead, a loaded CI machine made the 8 users slowly enough for all 8 to go).
    receiver.answer = () => 'hold';
    const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, {
      key: org.key,
      body: { url: receiver.url, events: ['user.created'] },
    });
    assert.equal(res.status, 201, res.text);
    for (let i = 0; i < 8; i++) await createUser(server, org);
    await waitFor(() => receiver.inFlight === 4, 'the first four deliveries in flight');
    return res.body.endpointId as string;
  }

  /** Answers the held deliveries once the batch's endpoint is stale (RECHECK_MS, 1 s, in delivery.ts): the next send reads it again. */
  async function afterRecheck(receiver: Receiver) {
    await sleep(1_100);
    receiver.answer = () => ({ status: 200 });
    receiver.release();
  }

  test('after a DELETE, the deliveries of the batch not yet sent are not sent', async () => {
    const org = await createOrg(server);
    const receiver = await startReceiver();
    try {
      const endpointId = await slowEndpoint(org, receiver);
      // Four in flight: nothing more is sent until they are answered, past the endpoint's re-read.
      const sent = receiver.received.length;
      assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}`, { key: org.key })).status, 204);
      await afterRecheck(receiver);
      await waitFor(() => receiver.inFlight === 0, 'the four in flight answered');
      await sleep(1_000);
      assert.ok(sent < 8, `some not sent yet when it was deleted (${sent})`);
      assert.equal(receiver.received.length, sent, 'only those already sent when it was deleted');
    } finally {
      await receiver.close();
    }
  });

  test('after a PATCH of the URL, the rest of the batch goes to the new URL', async () => {
    const org = await createOrg(server);
    const old = await startReceiver();
    const moved = await startReceiver();
    try {
      const endpointId = await slowEndpoint(org, old);
      const sent = old.received.length;
      const patched = await server.request('PATCH', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}`, {
        key: org.key,
        body: { version: 1, url: moved.url },
      });
      assert.equal(patched.status, 200, patched.text);
      await afterRecheck(old);
      await waitFor(() => moved.received.length === 8 - sent, 'the rest at the new URL');
      assert.ok(sent < 8, `some not sent yet when it changed (${sent})`);
      assert.equal(old.received.length, sent, 'the old URL got only those sent before the change');
    } finally {
      await old.close();
      await moved.close();
    }
  });
});
