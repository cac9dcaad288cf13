// Bad input at the SMTP gateway: each gets a clear SMTP reply, nothing partial reaches the next
// hop, the process keeps serving, and the event loop's worst delay over the file is printed
// (speed is the bench's; the figure is for reading). Also: a message whose stamping fails is
// refused with 451 under GATEWAY_FAIL_CLOSED, and passes unstamped (counted) without it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates, createUser } from './helpers/fixtures.ts';
import { client, gatewayOrg, rawSession, sendRaw, startSink, type GatewayOrg, type Sink } from './helpers/gateway.ts';

const MAX = 2 * 1024 * 1024;

describe('bad input at the SMTP gateway', () => {
  let server: TestServer;
  let sink: Sink;
  let port: number;
  let listener: { port: number; close(): Promise<void> };
  let a: GatewayOrg;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  before(async () => {
    sink = await startSink();
    server = await startServer({
      GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true',
      GATEWAY_MAX_BYTES: String(MAX),
      GATEWAY_SOCKET_TIMEOUT_MS: '1000',
      GATEWAY_FAIL_CLOSED: 'true',
    });
    listener = await server.deps.gateway.listen({ port: 0 });
    port = listener.port;
    a = await gatewayOrg(server, sink, { domain: 'bad-input.example' });
    // Measured from here: the server's start is not the gateway's work.
    delay.enable();
  });
  after(async (t) => {
    delay.disable();
    // The figure, not an assertion: timing belongs to the bench.
    process.stdout.write(`# gateway bad input: event loop worst delay ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms\n`);
    void t;
    await listener.close();
    await server.close();
    await sink.close();
  });

  const asA = () => client(port, { user: a.gatewayId, pass: a.password });
  const head = () => `From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: bad\r\n`;

  test('a header line of 1 MB: 550 saying the MIME cannot be read; nothing relayed', async () => {
    const raw = `${head()}X-Long: ${'a'.repeat(1024 * 1024)}\r\n\r\nHi.\r\n`;
    const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw);
    assert.equal(res.code, 550, res.response);
    assert.match(res.response, /MIME structure cannot be read/);
    assert.equal(sink.messages.length, 0);
  });

  test('a body line of 1 MB is stamped and relayed with no line over 998 bytes (quoted-printable)', async () => {
    const raw = `${head()}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n${'b'.repeat(1024 * 1024)}\r\n`;
    const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw);
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(1);
    const text = got.raw.toString('latin1');
    assert.match(text, /Content-Transfer-Encoding: quoted-printable/);
    assert.ok(text.split('\r\n').every((l) => l.length <= 998));
    assert.match(text, /Ada Lovelace/);
  });

  test('multipart without a boundary, and bytes that are no MIME at all: a clear reply, at most one relay each', async () => {
    const cases = [
      `${head()}MIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nHi\r\n--x--\r\n`,
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256)),
      `${head()}MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="never"\r\n\r\nno parts at all\r\n`,
    ];
    for (const raw of cases) {
      const before = sink.messages.length;
      const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw);
      assert.ok([250, 550].includes(res.code), res.response);
      assert.equal(sink.messages.length - before, res.code === 250 ? 1 : 0);
    }
  });

  test('over GATEWAY_MAX_BYTES: 552 and nothing relayed', async () => {
    const before = sink.messages.length;
    const res = await sendRaw(
      asA(),
      { from: a.user.email, to: ['grace@ext.example'] },
      `${head()}\r\n${'c'.repeat(76)}\r\n`.repeat(1) + `${'d'.repeat(76)}\r\n`.repeat(Math.ceil((MAX + 1000) / 78)),
    );
    assert.equal(res.code, 552, res.response);
    assert.equal(sink.messages.length, before);
  });

  test('a client that drops mid-DATA: nothing relayed, and the next message goes through', async () => {
    const before = sink.messages.length;
    const s = await rawSession(port);
    await s.command('EHLO dropper.example');
    const auth = Buffer.from(`\0${a.gatewayId}\0${a.password}`).toString('base64');
    assert.match(await s.command(`AUTH PLAIN ${auth}`), /^235/);
    assert.match(await s.command(`MAIL FROM:<${a.user.email}>`), /^250/);
    assert.match(await s.command('RCPT TO:<grace@ext.example>'), /^250/);
    assert.match(await s.command('DATA'), /^354/);
    s.write(`${head()}\r\nHalf a mess`);
    s.socket.destroy();
    await s.closed;
    const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, `${head()}\r\nWhole.\r\n`);
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(before + 1);
    assert.match(got.raw.toString('latin1'), /Whole\./);
    assert.equal(sink.messages.length, before + 1, 'the half message never reached the next hop');
  });

  test('a slow client that stops mid-DATA is disconnected after GATEWAY_SOCKET_TIMEOUT_MS; nothing relayed', async () => {
    const before = sink.messages.length;
    const s = await rawSession(port);
    await s.command('EHLO slow.example');
    const auth = Buffer.from(`\0${a.gatewayId}\0${a.password}`).toString('base64');
    await s.command(`AUTH PLAIN ${auth}`);
    await s.command(`MAIL FROM:<${a.user.email}>`);
    await s.command('RCPT TO:<grace@ext.example>');
    await s.command('DATA');
    s.write(`${head()}\r\nI am typing slowly`);
    await s.closed;
    assert.equal(sink.messages.length, before);
  });

  test('stamping that fails (no default template) under GATEWAY_FAIL_CLOSED: 451, counted as failed, nothing relayed', async () => {
    const org = await createOrgWithoutTemplates(server);
    await server.deps.gateway.staffVerify({ staffId: 'test', correlationId: 'test' }, org.orgId, 'no-template.example');
    await createUser(server, org, { email: 'ada@no-template.example' });
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
      key: org.key,
      body: { nextHop: { host: '127.0.0.1', port: sink.port, secure: false }, allowedNetworks: [], stampInternal: false },
    });
    const before = sink.messages.length;
    const res = await sendRaw(
      client(port, { user: put.body.gatewayId, pass: put.body.password }),
      { from: 'ada@no-template.example', to: ['grace@ext.example'] },
      'From: ada@no-template.example\r\nTo: grace@ext.example\r\n\r\nHi.\r\n',
    );
    assert.equal(res.code, 451, res.response);
    assert.equal(sink.messages.length, before);
    const settings = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key });
    assert.equal(settings.body.counts.failed, 1);
  });
});

// Without GATEWAY_TLS_CERT, AUTH from a client that is not on loopback is refused before any
// credential is read (docs/gateway.md, "Who may relay"): the password never crosses a network in
// clear. Needs an address of this machine that is not loopback; skipped on a machine with none.
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('AUTH without TLS from a client that is not on loopback', { skip: outside ? false : 'this machine has no address but loopback' }, () => {
  let server: TestServer;
  let sink: Sink;
  let listener: { port: number; close(): Promise<void> };
  before(async () => {
    sink = await startSink();
    server = await startServer({ GATEWAY_HOST: '0.0.0.0', GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true' });
    listener = await server.deps.gateway.listen({ port: 0 });
  });
  after(async () => {
    await listener.close();
    await server.close();
    await sink.close();
  });

  test('538 at the AUTH command, nothing relayed; the same credentials pass from loopback', async () => {
    const org = await gatewayOrg(server, sink, { domain: 'no-tls.example' });
    const auth = { user: org.gatewayId, pass: org.password };
    const envelope = { from: org.user.email, to: ['grace@ext.example'] };
    const raw = `From: ${org.user.email}\r\nTo: grace@ext.example\r\nSubject: hi\r\n\r\nHi.\r\n`;
    const remote = nodemailer.createTransport({ host: outside, port: listener.port, secure: false, ignoreTLS: true, auth });
    const refused = await sendRaw(remote, envelope, raw);
    assert.equal(refused.code, 538, refused.response);
    assert.match(refused.response, /5\.7\.11/);
    assert.equal(sink.messages.length, 0);
    const passed = await sendRaw(client(listener.port, auth), envelope, raw);
    assert.equal(passed.code, 250, passed.response);
  });
});
