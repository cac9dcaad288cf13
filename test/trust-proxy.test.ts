// TRUST_PROXY: whose X-Forwarded-* headers are believed. Unset, the client is the socket's address
// whatever a request claims; set to the proxy's address, X-Forwarded-For names the client (the
// anonymous throttle's key and the sign-in limits follow it). Either way the identity provider's
// issuer and endpoints derive from AUTH_URL, never from X-Forwarded-Host.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startServer, testEnv, type TestServer } from './helpers/server.ts';

const BURST = 2;
const forged = (client: string) => ({
  'x-forwarded-for': client,
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-port': '8443',
});

/** Anonymous requests to an org route, one per claimed client address: their statuses. */
async function anonymousStatuses(server: TestServer, clients: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const client of clients) statuses.push((await server.request('GET', '/v1/orgs/some-org', { headers: forged(client) })).status);
  return statuses;
}

/** GET /oauth2/authorize (one sign-in attempt per address) from each claimed client: their statuses. */
async function authorizeStatuses(server: TestServer, clients: string[]): Promise<number[]> {
  const auth = server.deps.config.authUrl;
  const statuses: number[] = [];
  for (const client of clients) {
    const query = new URLSearchParams({
      client_id: `app-client-${server.deps.config.stage}`,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: server.deps.config.appUrl,
    });
    const res = await fetch(`${auth}/oauth2/authorize?${query}`, { headers: forged(client), redirect: 'manual' });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

async function assertDiscoveryPinned(server: TestServer) {
  const auth = server.deps.config.authUrl;
  const res = await fetch(`${auth}/.well-known/openid-configuration`, { headers: forged('203.0.113.9') });
  const meta = (await res.json()) as Record<string, unknown>;
  for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'end_session_endpoint', 'jwks_uri']) {
    assert.ok(String(meta[key]).startsWith(auth), `${key}: ${meta[key]}`);
  }
  assert.ok(!JSON.stringify(meta).includes('evil.example'));
}

const limits = { ANON_RATE_LIMIT_BURST: String(BURST), ANON_RATE_LIMIT_RPS: '1', SIGNIN_ATTEMPTS_PER_MINUTE: String(BURST) };

describe('TRUST_PROXY unset: forwarded headers are not believed', () => {
  let server: TestServer;
  before(async () => {
    // A stage of its own: on Redis, its buckets are no other test file's, nor a previous run's
    // (a sign-in bucket lives a minute after its last use).
    server = await startServer({ ...limits, STAGE: `tpnone${randomBytes(3).toString('hex')}` });
  });
  after(() => server.close());

  test('every request is the socket address: claimed client addresses share one anonymous bucket', async () => {
    assert.deepEqual(await anonymousStatuses(server, ['198.51.100.1', '198.51.100.2', '198.51.100.3']), [401, 401, 429]);
  });

  test('and one sign-in bucket', async () => {
    assert.deepEqual(await authorizeStatuses(server, ['198.51.100.1', '198.51.100.2', '198.51.100.3']), [303, 303, 429]);
  });

  test('discovery names AUTH_URL whatever X-Forwarded-Host says', () => assertDiscoveryPinned(server));
});

describe('TRUST_PROXY names the proxy: X-Forwarded-For from it names the client', () => {
  let server: TestServer;
  before(async () => {
    // The tests connect from 127.0.0.1: they are the proxy.
    server = await startServer({ ...limits, STAGE: `tptrust${randomBytes(3).toString('hex')}`, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
  });
  after(() => server.close());

  test('each forwarded client has its own anonymous bucket', async () => {
    assert.deepEqual(await anonymousStatuses(server, ['198.51.100.1', '198.51.100.2', '198.51.100.3']), [401, 401, 401]);
    assert.deepEqual(await anonymousStatuses(server, ['198.51.100.4', '198.51.100.4', '198.51.100.4']), [401, 401, 429]);
  });

  test('the nearest untrusted hop is the client: a forged first entry does not escape the bucket', async () => {
    // The proxy appends the address it saw; whatever the client wrote before it is ignored.
    const statuses = await anonymousStatuses(server, ['1.1.1.1, 198.51.100.5', '2.2.2.2, 198.51.100.5', '3.3.3.3, 198.51.100.5']);
    assert.deepEqual(statuses, [401, 401, 429]);
  });

  test('the sign-in limits follow the forwarded client too', async () => {
    assert.deepEqual(await authorizeStatuses(server, ['198.51.100.11', '198.51.100.12', '198.51.100.13']), [303, 303, 303]);
    assert.deepEqual(await authorizeStatuses(server, ['198.51.100.14', '198.51.100.14', '198.51.100.14']), [303, 303, 429]);
  });

  test('discovery still names AUTH_URL, even from a trusted proxy', () => assertDiscoveryPinned(server));
});

test('a TRUST_PROXY that is not addresses or ranges stops start-up, naming the variable', () => {
  for (const bad of ['proxy.example', '10.0.0.0/33', '127.0.0.1/8/1', '::1/129']) {
    assert.throws(
      () => loadConfig(testEnv({ TRUST_PROXY: bad })),
      (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.startsWith('TRUST_PROXY:')),
      bad,
    );
  }
  assert.deepEqual(loadConfig(testEnv({ TRUST_PROXY: ' 10.0.0.1 , fd00::/8,loopback' })).trustProxy, ['10.0.0.1', 'fd00::/8', 'loopback']);
  assert.deepEqual(loadConfig(testEnv({})).trustProxy, []);
});
