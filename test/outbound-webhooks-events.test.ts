// Outbound webhooks (docs/webhooks.md), the events of time and of rendering, against a real HTTP
// receiver on localhost: `signature.rendered`, an event per render, the rest of a flood past ten a window counted into one;
// `campaign.started|ended` announced once per transition even with two instances on one database;
// a retry due on a service clock far ahead of the database's still comes (the queue claims by the
// database's clock).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg, uploadPng } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { manualClock } from './helpers/clock.ts';
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

describe('outbound webhooks: signature.rendered, an event per render, the rest of a flood counted into one', () => {
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

  test('each render is an event; past ten of one signature in a window, the rest are counted into one more', async () => {
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
    const renderedOf = (userId: string) => ofType(receiver, 'signature.rendered').filter((x) => x.json.data.userId === userId);
    // Bob: two renders, two events, each with its own correlation id.
    const bobRendered = await render(bob.userId, 'bob-0');
    await render(bob.userId, 'bob-1');
    // Ann: a flood of 13 renders in one window: ten events, then one counting the other three.
    const annRendered = await render(ann.userId, 'ann-0');
    for (let i = 1; i < 13; i++) await render(ann.userId, `ann-${i}`);
    const preview = await server.request('POST', `/v1/orgs/${org.orgId}/templates/preview`, {
      key: org.key,
      body: { userId: ann.userId, html: '<p>{{ user.name }}</p>', text: '' },
    });
    assert.equal(preview.status, 200, preview.text);
    await server.deps.renderedEvents.flush();
    await waitFor(() => renderedOf(ann.userId).length >= 11 && renderedOf(bob.userId).length >= 2, 'the events of both');
    const bobs = renderedOf(bob.userId).map((x) => x.json.data);
    assert.deepEqual(bobs.map((d) => [d.templateId, d.bytes, d.correlationId, d.count]).sort(), [
      [bobRendered.templateId, bobRendered.bytes, 'bob-0', 1],
      [bobRendered.templateId, bobRendered.bytes, 'bob-1', 1],
    ]);
    const anns = renderedOf(ann.userId).map((x) => x.json.data);
    assert.equal(anns.length, 11, 'ten events and one counting the rest (the preview is none)');
    const byCorrelation = new Map(anns.map((d) => [d.correlationId, d]));
    for (let i = 0; i < 10; i++) assert.equal(byCorrelation.get(`ann-${i}`)?.count, 1, `ann-${i}`);
    assert.deepEqual(byCorrelation.get('ann-10'), {
      userId: ann.userId,
      templateId: annRendered.templateId,
      bytes: annRendered.bytes,
      correlationId: 'ann-10',
      count: 3,
    });
    assert.equal(new Set(renderedOf(ann.userId).map((x) => x.headers['webhook-id'])).size, 11, 'each event its own webhook-id');
    // Another template (the org's new default) is another signature: counted apart, from one again.
    const other = await createTemplate(server, org, { name: 'Other', html: '<p>{{ user.name }} (other)</p>', text: '', isDefault: true });
    await render(ann.userId, 'ann-other');
    await server.deps.renderedEvents.flush();
    const again = await waitFor(() => {
      const mine = renderedOf(ann.userId).filter((x) => x.json.data.templateId === other.templateId);
      return mine.length >= 1 && mine;
    }, "ann's event for the other template");
    assert.deepEqual([again.length, again[0]?.json.data.count, again[0]?.json.data.correlationId], [1, 1, 'ann-other']);
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

describe('outbound webhooks: campaign.started and campaign.ended', () => {
  const clock = manualClock(Date.parse('2026-12-01T08:00:00Z'));
  let a: TestServer;
  let b: TestServer;
  let receiver: Receiver;
  before(async () => {
    // Two instances on one database and one clock; their announcers tick only when the test says
    // (announce()), except in the test of the timer.
    a = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { clock: clock.now, campaigns: { announceEveryMs: 50 } });
    b = await startServer(
      { WEBHOOK_ALLOW_PRIVATE: 'true' },
      { clock: clock.now, campaigns: { announceEveryMs: 24 * HOUR }, shared: { database: a.deps.database } },
    );
    receiver = await startReceiver();
  });
  after(async () => {
    await b.close();
    await a.close();
    await receiver.close();
  });

  const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
  async function campaign(org: TestOrg, times: { startsAt: string; endsAt?: string }) {
    const imageId = await uploadPng(a, org, 600, 100);
    const made = await a.request('POST', `/v1/orgs/${org.orgId}/campaigns`, {
      key: org.key,
      body: { name: 'Spring', ...times, audience: {}, variants: [{ imageId, link: 'https://shop.example/', alt: 'Spring', weight: 1 }] },
    });
    assert.equal(made.status, 201, made.text);
    return made.body as { campaignId: string; version: number };
  }
  // Each event once: an attempt that timed out on a busy machine is sent again with the same
  // webhook-id (at least once, docs/webhooks.md), so the events are counted by their ids.
  const forCampaign = (campaignId: string) => {
    const ids = new Set<string>();
    return receiver.received.filter((x) => {
      const id = String(x.headers['webhook-id']);
      if (x.json.data.campaignId !== campaignId || ids.has(id)) return false;
      ids.add(id);
      return true;
    });
  };

  test('a start and an end as the clock passes them: each event once, though both instances look at the same moment', async () => {
    const org = await createOrg(a);
    const { endpointId } = await addEndpoint(a, org, receiver.url, ['campaign.started', 'campaign.ended']);
    const { campaignId } = await campaign(org, { startsAt: at(HOUR), endsAt: at(2 * HOUR) });
    const claimed = async () => (await Promise.all([a.deps.announceCampaigns(), b.deps.announceCampaigns()])).reduce((x, y) => x + y);
    clock.advance(HOUR);
    // Instance a's timer may have claimed it already: then both instances' claims find nothing.
    const started = await waitFor(async () => {
      await claimed();
      return forCampaign(campaignId).length >= 1 && forCampaign(campaignId);
    }, 'campaign.started');
    assert.deepEqual(
      started.map((x) => [x.json.type, x.json.data.status, x.json.data.correlationId]),
      [['campaign.started', 'active', null]],
    );
    // Every request received for it, repeats included: what a failure below shows.
    const seen = () =>
      JSON.stringify(receiver.received.filter((x) => x.json.data.campaignId === campaignId).map((x) => [x.json.type, x.headers['webhook-id']]));
    // A claim counts every org's transitions: on a database other tests' campaigns share, the
    // clock's jump may end one of theirs. So what is checked is this endpoint's own events.
    const own = async () => (await deliveries(a, org, endpointId)).map((d) => d.type).sort();
    await claimed();
    assert.deepEqual(await own(), ['campaign.started'], `nothing more to announce; received ${seen()}`);
    clock.advance(HOUR);
    await waitFor(async () => {
      await claimed();
      return forCampaign(campaignId).length >= 2;
    }, 'campaign.ended');
    await claimed();
    assert.deepEqual(await own(), ['campaign.ended', 'campaign.started'], `received ${seen()}`);
    const ended = forCampaign(campaignId)[1]?.json;
    assert.deepEqual([ended?.type, ended?.data.status, ended?.data.name, ended?.data.endsAt], ['campaign.ended', 'ended', 'Spring', clock.now().toISOString()]);
    // Exactly one event per transition was written (the log lists events, not attempts).
    const log = await deliveries(a, org, endpointId);
    assert.deepEqual(log.map((d) => d.type).sort(), ['campaign.ended', 'campaign.started'], `received ${seen()}`);
  });

  test('the timer announces by itself; a campaign created already over announces nothing; ending one now with PATCH announces its end', async () => {
    const org = await createOrg(a);
    const { endpointId } = await addEndpoint(a, org, receiver.url, ['campaign.started', 'campaign.ended']);
    const past = await campaign(org, { startsAt: at(-2 * HOUR), endsAt: at(-HOUR) });
    const running = await campaign(org, { startsAt: at(-HOUR) });
    await waitFor(() => forCampaign(running.campaignId).length >= 1, "the running campaign's start, from a's timer");
    // The tick that announced it looked at the past campaign too (one statement claims every
    // change), and wrote its events in the same transaction: the log would list them by now.
    assert.deepEqual(
      (await deliveries(a, org, endpointId)).map((d) => d.type),
      ['campaign.started'],
    );
    const ended = await a.request('PATCH', `/v1/orgs/${org.orgId}/campaigns/${running.campaignId}`, {
      key: org.key,
      body: { version: running.version, endsAt: at(0) },
    });
    assert.equal(ended.status, 200, ended.text);
    await waitFor(() => forCampaign(running.campaignId).length >= 2, "the running campaign's end");
    assert.deepEqual(
      forCampaign(running.campaignId).map((x) => x.json.type),
      ['campaign.started', 'campaign.ended'],
    );
    assert.deepEqual(forCampaign(past.campaignId), []);
    assert.equal((await deliveries(a, org, endpointId)).length, 2);
  });
});
