// Signed events the database cannot store as JSON, and the staff list's paging
// (docs/api.md, "Billing"): every signed event is kept, answered 200, and listed; no page skips a row.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg } from './helpers/fixtures.ts';
import { deliver, event, staffToken, subscription } from './helpers/payments.ts';

describe('webhook events the database cannot store as JSON, and exact paging', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startServer();
    token = await staffToken(server);
  });
  after(() => server.close());

  const stored = (id: string) => server.deps.database.db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
  const listed = async (query: string) => (await server.request('GET', `/v1/admin/webhook-events?limit=200&${query}`, { token })).body.items;

  test('every event of a batch sharing one received_at, walked one per page, appears once (newest first)', async () => {
    const o = await createOrg(server);
    const events = Array.from({ length: 12 }, (_, i) =>
      event('customer.subscription.updated', subscription(o.orgId, { quantity: 10 + i }), { created: 1_800_000_000 + i }),
    );
    // Submitted in one turn: one batch, one transaction, one now() to the microsecond.
    await Promise.all(
      events.map((e) =>
        server.deps.billing.intake({ id: e.id, type: e.type, created: e.created, object: e.data.object }, Buffer.from(JSON.stringify(e)), 'corr-page'),
      ),
    );
    const times = new Set(
      (
        await server.deps.database.db
          .selectFrom('webhook_events')
          .select('received_at')
          .where(
            'id',
            'in',
            events.map((e) => e.id),
          )
          .execute()
      ).map((r) => r.received_at.getTime()),
    );
    assert.equal(times.size, 1, 'one received_at');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await server.request('GET', `/v1/admin/webhook-events?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token });
      assert.equal(res.status, 200);
      seen.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor && seen.length < 100);
    assert.deepEqual(seen.filter((id) => events.some((e) => e.id === id)).sort(), events.map((e) => e.id).sort(), 'none skipped, none repeated');
    assert.equal(new Set(seen).size, seen.length);
    assert.equal((await server.request('GET', '/v1/admin/webhook-events?cursor=nonsense', { token })).status, 400);
  });

  // Each is signed by the provider's secret: refusing it (or failing with 500) makes the provider retry forever.
  const hostile = (orgId: string) => {
    const deep = `${'['.repeat(5000)}0${']'.repeat(5000)}`;
    return {
      'NUL in the customer id': {
        body: (id: string) =>
          `{"id":"${id}","type":"invoice.payment_failed","created":1800000000,"data":{"object":{"customer":"cus_\\u0000x","metadata":{"orgId":"${orgId}"}}}}`,
        status: 'failed',
        error: /data\.object\.customer holds a NUL character or a lone surrogate/,
      },
      'lone surrogate in the price': {
        body: (id: string) =>
          `{"id":"${id}","type":"customer.subscription.updated","created":1800000000,"data":{"object":{"metadata":{"orgId":"${orgId}"},"items":{"data":[{"quantity":3,"price":{"id":"price_\\ud800"}}]}}}}`,
        status: 'failed',
        error: /price\.id holds a NUL character or a lone surrogate/,
      },
      'NUL in the event id and type': {
        body: (id: string) => `{"id":"${id}\\u0000","type":"invoice.\\u0000","created":1800000000,"data":{"object":{}}}`,
        status: 'ignored',
        error: null,
      },
      '5,000 levels of nesting in a field the handler does not read': {
        body: (id: string) =>
          `{"id":"${id}","type":"invoice.payment_failed","created":1800000000,"data":{"object":{"metadata":{"orgId":"${orgId}"},"lines":${deep}}}}`,
        status: 'applied',
        error: null,
      },
    } as const;
  };

  test('a signed event holding a NUL, a lone surrogate or 5,000 levels of nesting is answered 200 and kept, raw', async () => {
    const o = await createOrg(server);
    for (const [name, c] of Object.entries(hostile(o.orgId))) {
      const id = `evt_hostile_${Math.random().toString(36).slice(2)}`;
      const rawBody = c.body(id);
      const res = await deliver(server, null, { rawBody, headers: { 'x-correlation-id': `corr-${id}` } });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      const storedId = name.startsWith('NUL in the event id') ? `${id}\uFFFD` : id;
      const row = await stored(storedId);
      assert.ok(row, `${name}: kept`);
      assert.equal(Buffer.from(row.raw_body).toString('utf8'), rawBody, `${name}: the body exactly as signed`);
      assert.equal(row.status, c.status, name);
      if (c.error) assert.match(row.error ?? '', c.error, name);
      // Listed for staff; a failed one is replayable (and fails again the same way, answered 200).
      const items = await listed(`status=${c.status}`);
      assert.ok(
        items.some((e: { id: string }) => e.id === storedId),
        `${name}: listed as ${c.status}`,
      );
      if (c.status === 'failed') {
        const again = await server.request('POST', `/v1/admin/webhook-events/${encodeURIComponent(storedId)}/replay`, { token });
        assert.equal(again.status, 200);
        assert.equal(again.body.result, 'failed');
        assert.match(again.body.detail, c.error as RegExp);
        assert.equal((await stored(storedId))?.attempts, 2);
      }
      const retry = await deliver(server, null, { rawBody });
      assert.deepEqual(retry.body, { received: true, deduplicated: true }, `${name}: a retry is a duplicate`);
    }
    const state = (await server.request('GET', `/v1/orgs/${o.orgId}`, { key: o.key })).body;
    assert.equal(state.subscriptionStatus, 'past_due', 'the nested one applied');
    assert.equal(state.seats, 50, 'the failed ones changed nothing');
  });

  test('a NUL in a replayed event id or a list filter is a 400, never a 500', async () => {
    assert.equal((await server.request('POST', '/v1/admin/webhook-events/a%00b/replay', { token })).status, 400);
    assert.equal((await server.request('GET', '/v1/admin/webhook-events?type=a%00b', { token })).status, 400);
    assert.equal((await server.request('GET', '/v1/admin/webhook-events?orgId=nope', { token })).status, 400);
  });
});
