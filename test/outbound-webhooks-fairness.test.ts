// Fairness of deliveries (docs/webhooks.md, "Slow endpoints and fairness"; DECISIONS wave 3, "Fair
// queue"): endpoints that never answer, many of them, beside healthy ones, on real receivers on
// localhost. Each test has a server (and database) of its own: the hanging attempts it leaves in
// flight would hold the next test's slots. The checks are structural (a healthy endpoint served
// while every hanging attempt is still in flight), not timings: the hanging attempts time out far
// later than the wait for the healthy delivery.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { waitFor } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

/** The instance's delivery slots (32 in the service, fewer here: the same rules with fewer hanging requests) and an org's share (half). */
const SLOTS = 6;
const ORG_SLOTS = 3;

async function addEndpoint(server: TestServer, org: TestOrg, url: string, events: string[]) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key: org.key, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body as { endpointId: string };
}

async function attempts(server: TestServer, org: TestOrg, endpointId: string) {
  const res = await server.request('GET', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpointId}/deliveries`, { key: org.key });
  assert.equal(res.status, 200, res.text);
  return res.body.items as { state: string; attempts: { responseStatus: number | null; error: string | null }[] }[];
}

/** A server whose attempts wait `timeoutMs` for an answer (far longer than any wait of the test, unless it says otherwise). */
const serverWaiting = (timeoutMs = 120_000, slots = SLOTS) =>
  startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: 'memory://' }, { webhooks: { retryScheduleMs: [600_000], timeoutMs, slots } });

/** One receiver for everything: `user.created` deliveries hang, any other is answered 200 at once. */
async function hangingUserEvents(): Promise<Receiver> {
  const r = await startReceiver();
  r.answer = (_n, x) => (x.json.type === 'user.created' ? 'hold' : { status: 200 });
  return r;
}

const templateCreated = (r: Receiver) => r.received.filter((x) => x.json.type === 'template.created');

describe('outbound webhooks: slow endpoints and fairness', () => {
  test("an org's healthy endpoint on the same host as its hanging ones gets a connection at once", async () => {
    // Ten hanging endpoints with four deliveries each: 40 requests in flight to one host and port,
    // more than the 32 sockets per host one shared agent allowed (the healthy endpoint's request
    // waited in that agent for a socket until its timeout). Each endpoint has sockets of its own now.
    // The service's 32 slots: each of the eleven endpoints has one.
    const server = await serverWaiting(120_000, 32);
    const r = await hangingUserEvents();
    try {
      const org = await createOrg(server);
      for (let i = 0; i < 10; i++) await addEndpoint(server, org, r.url, ['user.created']);
      const { endpointId } = await addEndpoint(server, org, r.url, ['template.created']);
      for (let i = 0; i < 4; i++) await createUser(server, org);
      await waitFor(() => r.held === 40, 'four deliveries in flight to each of the ten hanging endpoints');
      await createTemplate(server, org);
      await waitFor(() => templateCreated(r).length === 1, 'the healthy endpoint served');
      assert.equal(r.held, 40, 'served while every hanging attempt was still in flight');
      const [d] = await waitFor(async () => {
        const log = await attempts(server, org, endpointId);
        return log[0]?.state === 'succeeded' && log;
      }, 'the healthy delivery recorded');
      assert.deepEqual([d!.attempts.length, d!.attempts[0]!.responseStatus], [1, 200]);
    } finally {
      await server.close();
      await r.close();
    }
  });

  test("an org with more hanging endpoints than slots takes half of them: another org's delivery goes at once", async () => {
    // More hanging endpoints of one org than slots, a delivery each: the org runs half the slots'
    // drains, the others wait their turn, and the other org's drain finds a slot free. (With the
    // slots shared the first org took them all, each for the whole timeout of its attempts.)
    const server = await serverWaiting();
    const r = await hangingUserEvents();
    try {
      const busy = await createOrg(server);
      const other = await createOrg(server);
      for (let i = 0; i < SLOTS + 2; i++) await addEndpoint(server, busy, r.url, ['user.created']);
      await addEndpoint(server, other, r.url, ['template.created']);
      await createUser(server, busy);
      await waitFor(() => r.held === ORG_SLOTS, "the busy org's share of the slots, a hanging delivery each");
      await createTemplate(server, other);
      await waitFor(() => templateCreated(r).length === 1, "the other org's endpoint served");
      assert.equal(r.held, ORG_SLOTS, 'served while every hanging attempt was still in flight');
      assert.equal(r.received.filter((x) => x.json.type === 'user.created').length, ORG_SLOTS, 'the busy org never ran more than its share');
    } finally {
      await server.close();
      await r.close();
    }
  });

  test('every slot taken by hanging endpoints: a drain gives its slot back after its attempts, before its backlog', async () => {
    // Two orgs with half the slots of hanging endpoints each fill them all; each endpoint has five
    // deliveries, four in flight. A third org's delivery waits for a slot: the drains give theirs
    // back once their attempts time out (here after 6 s), and the third org's goes before any fifth
    // delivery (without giving back, each drain sent its fifth and kept the slot another timeout).
    const server = await serverWaiting(6_000);
    const hang = await startReceiver();
    const ok = await startReceiver();
    hang.answer = () => 'hold';
    try {
      const [a, b, c] = [await createOrg(server), await createOrg(server), await createOrg(server)];
      for (const org of [a, b]) for (let i = 0; i < ORG_SLOTS; i++) await addEndpoint(server, org, hang.url, ['user.created']);
      await addEndpoint(server, c, ok.url, ['template.created']);
      for (let i = 0; i < 5; i++) for (const org of [a, b]) await createUser(server, org);
      await waitFor(() => hang.received.length >= SLOTS * 4, 'four deliveries in flight to each hanging endpoint', 60_000);
      let hangingSent = -1;
      ok.answer = () => {
        hangingSent = hang.received.length;
        return { status: 200 };
      };
      await createTemplate(server, c);
      await waitFor(() => ok.received.length === 1, "the third org's endpoint served", 60_000);
      assert.ok(hangingSent < SLOTS * 5, `served before the hanging endpoints' backlogs (${hangingSent} of ${SLOTS * 5} sent)`);
    } finally {
      await server.close();
      await hang.close();
      await ok.close();
    }
  });
});
