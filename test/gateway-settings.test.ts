// The gateway's HTTP side (docs/gateway.md): domains claimed and verified through a real DNS
// server on localhost (DNS_SERVERS), one org per verified domain, staff's override, the settings
// with their once-answered password, its rotation, the next hop's public-address rule, and the
// staff error list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import { startDns, type TestDns } from './helpers/dns.ts';
import { staffToken } from './helpers/payments.ts';

describe('gateway domains and settings', () => {
  let dns: TestDns;
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    dns = await startDns();
    server = await startServer({ DNS_SERVERS: dns.server });
    org = await createOrg(server);
    other = await createOrg(server);
  });
  after(async () => {
    await server.close();
    await dns.close();
  });

  test('a claimed domain answers its TXT record; verify is 409 until the record holds the value, then 200; the audit has both', async () => {
    const claimed = await server.request('POST', `/v1/orgs/${org.orgId}/domains`, { key: org.key, body: { domain: 'Contoso-Gw.Example.' } });
    assert.equal(claimed.status, 201, claimed.text);
    assert.equal(claimed.body.domain, 'contoso-gw.example');
    assert.equal(claimed.body.verified, false);
    const record = claimed.body.verificationRecord;
    assert.equal(record.type, 'TXT');
    assert.equal(record.name, '_sigsvc.contoso-gw.example');
    assert.match(record.value, /^sigsvc-verify=[A-Za-z0-9_-]{20,}$/);

    const again = await server.request('POST', `/v1/orgs/${org.orgId}/domains`, { key: org.key, body: { domain: 'contoso-gw.example' } });
    assert.equal(again.status, 409);

    const missing = await server.request('POST', `/v1/orgs/${org.orgId}/domains/contoso-gw.example/verify`, { key: org.key });
    assert.equal(missing.status, 409, missing.text);
    assert.match(missing.body.error.message, /No TXT record/);

    dns.setTxt(record.name, ['v=spf1 -all', 'sigsvc-verify=someone-elses']);
    const wrong = await server.request('POST', `/v1/orgs/${org.orgId}/domains/contoso-gw.example/verify`, { key: org.key });
    assert.equal(wrong.status, 409);
    assert.deepEqual(wrong.body.error.details.found, ['sigsvc-verify=someone-elses']);

    dns.setTxt(record.name, ['v=spf1 -all', record.value]);
    const ok = await server.request('POST', `/v1/orgs/${org.orgId}/domains/contoso-gw.example/verify`, { key: org.key });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.verified, true);
    assert.equal(ok.body.verifiedBy, 'dns');

    const list = await server.request('GET', `/v1/orgs/${org.orgId}/domains`, { key: org.key });
    assert.deepEqual(
      list.body.items.map((d: { domain: string; verified: boolean }) => [d.domain, d.verified]),
      [['contoso-gw.example', true]],
    );
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit`, { key: org.key });
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    assert.ok(actions.includes('gateway.domain.claim') && actions.includes('gateway.domain.verify'), actions.join());
  });

  test('a domain is verified for one org at a time: the second org may claim it, and its verify is 409 even with its own record', async () => {
    const claimed = await server.request('POST', `/v1/orgs/${other.orgId}/domains`, { key: other.key, body: { domain: 'contoso-gw.example' } });
    assert.equal(claimed.status, 201);
    dns.setTxt('_sigsvc.contoso-gw.example', [claimed.body.verificationRecord.value]);
    const verify = await server.request('POST', `/v1/orgs/${other.orgId}/domains/contoso-gw.example/verify`, { key: other.key });
    assert.equal(verify.status, 409, verify.text);
    assert.match(verify.body.error.message, /another organisation/);
    const staff = await staffToken(server);
    const override = await server.request('POST', `/v1/admin/orgs/${other.orgId}/domains/contoso-gw.example/verify`, { token: staff });
    assert.equal(override.status, 409, 'staff cannot verify it for a second org either');
    const fresh = await server.request('POST', `/v1/admin/orgs/${other.orgId}/domains/other-gw.example/verify`, { token: staff });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.verifiedBy, 'staff');
    const unknownOrg = await server.request('POST', `/v1/admin/orgs/00000000-0000-4000-8000-000000000000/domains/x-gw.example/verify`, { token: staff });
    assert.equal(unknownOrg.status, 404);
    const removed = await server.request('DELETE', `/v1/orgs/${other.orgId}/domains/contoso-gw.example`, { key: other.key });
    assert.equal(removed.status, 204);
    assert.equal((await server.request('DELETE', `/v1/orgs/${other.orgId}/domains/contoso-gw.example`, { key: other.key })).status, 404);
  });

  test('bad domains and bad settings are 400 and change nothing', async () => {
    for (const domain of ['localhost', 'exa mple.com', '-bad.example', '1.2.3.4', `${'a'.repeat(64)}.example`]) {
      const res = await server.request('POST', `/v1/orgs/${org.orgId}/domains`, { key: org.key, body: { domain } });
      assert.equal(res.status, 400, `${domain}: ${res.text}`);
    }
    const base = { nextHop: { host: 'mx.example.net', port: 25, secure: false }, allowedNetworks: [], stampInternal: false };
    const cases = [
      { ...base, allowedNetworks: ['not-a-range'] },
      { ...base, allowedNetworks: [{ cidr: '10.0.0.0/33', shared: true }] },
      { ...base, nextHop: { host: '127.0.0.1', port: 25, secure: false } },
      { ...base, nextHop: { host: '10.1.2.3', port: 25, secure: false } },
      { ...base, nextHop: { host: 'mx.example.net', port: 0, secure: false } },
    ];
    for (const body of cases) {
      const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key })).status, 404);
  });

  test('settings: the password once, a hash kept; rotation answers a new one; GET has counts and routing steps', async () => {
    const body = {
      nextHop: { host: '203.0.114.10', port: 25, secure: false },
      allowedNetworks: ['198.51.101.0/24', { cidr: '40.92.0.0/15', shared: true }],
      stampInternal: true,
      m365TenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
    };
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key, body });
    assert.equal(put.status, 200, put.text);
    assert.match(put.body.gatewayId, /^gw[0-9a-f]{14}$/);
    assert.equal(put.body.username, put.body.gatewayId);
    assert.ok(put.body.password.length >= 30);
    assert.deepEqual(put.body.allowedNetworks, [
      { cidr: '198.51.101.0/24', shared: false },
      { cidr: '40.92.0.0/15', shared: true },
    ]);
    assert.deepEqual(put.body.counts, { stamped: 0, passed: 0, refused: 0, failed: 0 });
    assert.ok(put.body.routing.microsoft365.some((s: string) => s.includes('X-Sigsvc-Stamped')));
    assert.ok(put.body.routing.googleWorkspace.length > 0);
    const stored = await server.deps.database.db.selectFrom('gateway_settings').selectAll().where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    assert.notEqual(stored.password_hash, put.body.password);
    assert.ok(!JSON.stringify(stored).includes(put.body.password));

    const update = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key, body: { ...body, stampInternal: false } });
    assert.equal(update.status, 200);
    assert.equal(update.body.password, undefined, 'an update answers no password');
    assert.equal(update.body.gatewayId, put.body.gatewayId);
    const get = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key });
    assert.equal(get.status, 200);
    assert.equal(get.body.password, undefined);
    assert.equal(get.body.stampInternal, false);
    assert.equal(get.body.lastMessageAt, null);

    const rotated = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/gateway/rotate-password`, { key: org.key });
    assert.equal(rotated.status, 200);
    assert.ok(rotated.body.password && rotated.body.password !== put.body.password);
    const none = await server.request('POST', `/v1/orgs/${other.orgId}/integrations/gateway/rotate-password`, { key: other.key });
    assert.equal(none.status, 404);
  });

  test('staff list gateway errors; an org key may not', async () => {
    const staff = await staffToken(server);
    const res = await server.request('GET', `/v1/admin/gateway-errors?orgId=${org.orgId}`, { token: staff });
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body.items));
    assert.equal((await server.request('GET', '/v1/admin/gateway-errors', { key: org.key })).status, 403);
  });
});
