// The claims that keep an endpoint's deliveries to one sender at a time, at most 4 in flight
// (docs/webhooks.md): a worker's claim, its top-up while it holds one (the fourteenth session), and
// a lease that runs out. Deliveries are written with the repository's emitTo, which queues no drain,
// so no worker of the test's service takes them: the test is the only claimant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg } from './helpers/fixtures.ts';
import { outboundRepo } from '../src/store/repositories/outbound-webhooks.ts';
import { drainRepo } from '../src/store/repositories/outbound-drain.ts';

const LEASE_MS = 60_000;

/** A delivery's lease run out, as after renewals stalled. */
const expire = (db: TestServer['deps']['database']['db'], id: string) =>
  sql`update outbound_deliveries set lease_until = now() - interval '1 second' where id = ${id}`.execute(db);

describe('outbound webhooks: claims', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(() => server.close());

  async function endpointWithDeliveries(count: number) {
    const org = await createOrg(server);
    const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, {
      key: org.key,
      // Subscribed to what this test never makes happen: its only deliveries are the ones below.
      body: { url: 'http://127.0.0.1:9/hooks', events: ['template.updated'] },
    });
    assert.equal(res.status, 201, res.text);
    const endpointId = res.body.endpointId as string;
    const db = server.deps.database.db;
    for (let i = 0; i < count; i++) {
      await outboundRepo.emitTo(db, { id: `msg_${randomUUID()}`, orgId: org.orgId, type: 'webhook.test', body: '{}' }, endpointId);
    }
    return { db, endpointId };
  }

  test('one worker holds an endpoint; it takes more under its live claim, a stranger takes none', async () => {
    const { db, endpointId } = await endpointWithDeliveries(3);
    const now = new Date();
    const first = await drainRepo.claimBatch(db, endpointId, now, 1, LEASE_MS);
    assert.ok(first.kind === 'claimed' && first.deliveries.length === 1, JSON.stringify(first));
    assert.equal((await drainRepo.claimBatch(db, endpointId, now, 32, LEASE_MS)).kind, 'held', 'a second worker waits');
    assert.deepEqual(await drainRepo.claimMore(db, endpointId, randomUUID(), now, 4, LEASE_MS), [], "another token's top-up takes nothing");
    assert.equal(await drainRepo.anyDueFree(db, endpointId, first.token, now), true);
    const more = await drainRepo.claimMore(db, endpointId, first.token, now, 4, LEASE_MS);
    assert.equal(more.length, 2, 'the holder takes the two still due');
    assert.ok(more.every((d) => d.lease_token === first.token && d.id !== first.deliveries[0]!.id && d.body === '{}'));
    assert.equal(await drainRepo.anyDueFree(db, endpointId, first.token, now), false);
    assert.deepEqual(await drainRepo.claimMore(db, endpointId, first.token, now, 4, LEASE_MS), [], 'none left to take');
  });

  test("a worker's lease that ran out: it never retakes its own delivery, and takes nothing once it holds no live lease", async () => {
    const { db, endpointId } = await endpointWithDeliveries(4);
    const now = new Date();
    const claim = await drainRepo.claimBatch(db, endpointId, now, 2, LEASE_MS);
    assert.ok(claim.kind === 'claimed' && claim.deliveries.length === 2);
    const [a, b] = claim.deliveries.map((d) => d.id) as [string, string];
    // The lease of one ran out while it was still being sent (renewals stalled); the other's is live.
    await expire(db, a);
    assert.equal(await drainRepo.anyDueFree(db, endpointId, claim.token, now), true, 'the third and fourth are free');
    const third = await drainRepo.claimMore(db, endpointId, claim.token, now, 1, LEASE_MS);
    assert.equal(third.length, 1, 'the third is taken, its own run-out one is not');
    assert.ok(third[0]!.id !== a && third[0]!.id !== b);
    // All of its own ran out: the claim holds nothing, so it takes nothing, not even the fourth, never leased.
    await expire(db, b);
    await expire(db, third[0]!.id);
    assert.deepEqual(await drainRepo.claimMore(db, endpointId, claim.token, now, 4, LEASE_MS), []);
    const next = await drainRepo.claimBatch(db, endpointId, now, 32, LEASE_MS);
    assert.ok(next.kind === 'claimed' && next.token !== claim.token);
    assert.equal(next.deliveries.length, 4);
    assert.ok([a, b, third[0]!.id].every((id) => next.deliveries.some((d) => d.id === id)));
  });

  test('a worker tops up nothing while another holds a live lease on the endpoint (it claimed after a stall)', async () => {
    const { db, endpointId } = await endpointWithDeliveries(3);
    const now = new Date();
    const claim = await drainRepo.claimBatch(db, endpointId, now, 1, LEASE_MS);
    assert.ok(claim.kind === 'claimed');
    // Another worker's claim of one of the others, as claimBatch would make it after this one's lease had lapsed.
    const other = await db
      .selectFrom('outbound_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .where('lease_token', 'is', null)
      .executeTakeFirstOrThrow();
    await sql`update outbound_deliveries set lease_token = ${randomUUID()}, lease_until = now() + interval '1 minute' where id = ${other.id}`.execute(db);
    assert.deepEqual(await drainRepo.claimMore(db, endpointId, claim.token, now, 4, LEASE_MS), []);
  });

  test('a disabled endpoint is neither claimed nor topped up', async () => {
    const { db, endpointId } = await endpointWithDeliveries(2);
    const now = new Date();
    const claim = await drainRepo.claimBatch(db, endpointId, now, 1, LEASE_MS);
    assert.equal(claim.kind, 'claimed');
    await outboundRepo.disable(db, endpointId, 'a test');
    if (claim.kind === 'claimed') assert.deepEqual(await drainRepo.claimMore(db, endpointId, claim.token, now, 4, LEASE_MS), []);
    assert.equal((await drainRepo.claimBatch(db, endpointId, now, 32, LEASE_MS)).kind, 'none');
  });
});
