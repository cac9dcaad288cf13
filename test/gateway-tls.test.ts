// The gateway with STARTTLS (GATEWAY_TLS_CERT / _KEY, a certificate made by openssl for the test)
// and GATEWAY_DOMAIN: a connection from a shared range is named by its TLS server name (SNI)
// `<gatewayId>.<GATEWAY_DOMAIN>`, and that name cannot speak for another org's domain. And a next
// hop given by name: resolved for the message through DNS_SERVERS (a local dns2 server), connected
// to by address, with the name as its TLS server name.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { startDns, type TestDns } from './helpers/dns.ts';
import { startServer, type TestServer } from './helpers/server.ts';
import { gatewayOrg, sendRaw, startSink, type GatewayOrg, type Sink } from './helpers/gateway.ts';

const DOMAIN = 'gw.test';

describe('the gateway over STARTTLS, orgs named by SNI', () => {
  let dir: string;
  let dns: TestDns;
  let tlsFiles: { key: Buffer; cert: Buffer };
  let server: TestServer;
  let sink: Sink;
  let sinkB: Sink;
  let port: number;
  let listener: { port: number; close(): Promise<void> };
  let a: GatewayOrg;
  let b: GatewayOrg;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sigsvc-gw-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=*.${DOMAIN}`,
        '-addext',
        `subjectAltName=DNS:*.${DOMAIN}`,
      ],
      { stdio: 'ignore' },
    );
    tlsFiles = { key: readFileSync(key), cert: readFileSync(cert) };
    sink = await startSink();
    sinkB = await startSink();
    dns = await startDns();
    server = await startServer({
      GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true',
      GATEWAY_TLS_CERT: cert,
      GATEWAY_TLS_KEY: key,
      GATEWAY_DOMAIN: DOMAIN,
      DNS_SERVERS: dns.server,
    });
    listener = await server.deps.gateway.listen({ port: 0 });
    port = listener.port;
    const shared = [{ cidr: '127.0.0.0/8', shared: true }];
    a = await gatewayOrg(server, sink, { domain: 'tls-a.example', allowedNetworks: shared });
    b = await gatewayOrg(server, sinkB, { domain: 'tls-b.example', allowedNetworks: shared });
  });
  after(async () => {
    await listener.close();
    await server.close();
    await sink.close();
    await sinkB.close();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tlsClient = (servername: string, auth?: { user: string; pass: string }) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { servername, rejectUnauthorized: false },
      ...(auth ? { auth } : {}),
    } as Parameters<typeof nodemailer.createTransport>[0]);
  const message = (org: GatewayOrg) => Buffer.from(`From: ${org.user.email}\r\nTo: grace@ext.example\r\nSubject: tls\r\n\r\nHi.\r\n`);

  test("the org's own smart-host name names it: stamped and relayed to its next hop", async () => {
    const res = await sendRaw(tlsClient(`${a.gatewayId}.${DOMAIN}`), { from: a.user.email, to: ['grace@ext.example'] }, message(a));
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(1);
    assert.match(got.raw.toString('latin1'), new RegExp(`X-Sigsvc-Stamped: ${a.orgId}; stamped`));
    const settings = await server.request('GET', `/v1/orgs/${a.orgId}/integrations/gateway`, { key: a.key });
    assert.equal(settings.body.smartHost, `${a.gatewayId}.${DOMAIN}`);
  });

  test("org B's smart-host name cannot send as org A's domain; a name that is no org's proves nothing", async () => {
    const spoof = await sendRaw(tlsClient(`${b.gatewayId}.${DOMAIN}`), { from: a.user.email, to: ['grace@ext.example'] }, message(a));
    assert.equal(spoof.code, 550, spoof.response);
    const unknown = await sendRaw(tlsClient(`gw0000000000000.${DOMAIN}`), { from: a.user.email, to: ['grace@ext.example'] }, message(a));
    assert.equal(unknown.code, 550, unknown.response);
    assert.match(unknown.response, /does not prove its organisation/);
    assert.equal(sink.messages.length, 1);
    assert.equal(sinkB.messages.length, 0);
  });

  test('AUTH after STARTTLS names the org as well', async () => {
    const res = await sendRaw(tlsClient('localhost', { user: b.gatewayId, pass: b.password }), { from: b.user.email, to: ['grace@ext.example'] }, message(b));
    assert.equal(res.code, 250, res.response);
    assert.match((await sinkB.next(1)).raw.toString('latin1'), new RegExp(`X-Sigsvc-Stamped: ${b.orgId}; stamped`));
  });

  test('a next hop given by name: resolved through DNS_SERVERS for the message, connected to by address, the name as its TLS server name', async () => {
    const hop = `hop.${DOMAIN}`;
    dns.setA(hop, ['127.0.0.1']);
    const settings = (nextHop: { host: string; port: number; secure: boolean }) =>
      server.request('PUT', `/v1/orgs/${a.orgId}/integrations/gateway`, {
        key: a.key,
        body: { nextHop, allowedNetworks: [{ cidr: '127.0.0.0/8', shared: true }], stampInternal: false },
      });
    assert.equal((await settings({ host: hop, port: sink.port, secure: false })).status, 200);
    const sni = tlsClient(`${a.gatewayId}.${DOMAIN}`);
    const plain = await sendRaw(sni, { from: a.user.email, to: ['grace@ext.example'] }, message(a));
    assert.equal(plain.code, 250, plain.response);
    assert.match((await sink.next(2)).raw.toString('latin1'), new RegExp(`X-Sigsvc-Stamped: ${a.orgId}; stamped`));

    // A next hop on implicit TLS records the server name the gateway asked for. Its certificate
    // (the test's own) is trusted by no one, so the gateway answers 451 and the sender retries.
    const names: string[] = [];
    const tlsHop = new SMTPServer({
      secure: true,
      ...tlsFiles,
      SNICallback: (name, done) => {
        names.push(name);
        done(null, createSecureContext(tlsFiles));
      },
      authOptional: true,
      disabledCommands: ['AUTH'],
      logger: false,
      onData: (stream, _session, done) => stream.on('end', () => done()).resume(),
    });
    // The gateway drops the handshake (it trusts no test certificate): smtp-server reports that as an error event.
    const dropped: Error[] = [];
    tlsHop.on('error', (err) => dropped.push(err));
    await new Promise<void>((resolve) => tlsHop.listen(0, '127.0.0.1', () => resolve()));
    try {
      assert.equal((await settings({ host: hop, port: (tlsHop.server.address() as { port: number }).port, secure: true })).status, 200);
      const refused = await sendRaw(sni, { from: a.user.email, to: ['grace@ext.example'] }, message(a));
      assert.equal(refused.code, 451, refused.response);
      assert.match(refused.response, /certificate/);
      assert.deepEqual([...new Set(names)], [hop]);
    } finally {
      await new Promise<void>((resolve) => tlsHop.close(() => resolve()));
    }
  });
});
