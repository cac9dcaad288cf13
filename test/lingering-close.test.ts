// Issue 13.7: a body over the limit gets its 413 to the client, which is usually still sending it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';

interface Upload {
  /** Everything the server sent, as text. */
  received: string;
  /** How many body bytes the client wrote before the connection ended. */
  sent: number;
  /** A socket error on the client's side (EPIPE, ECONNRESET), if any. */
  error: string | undefined;
  ms: number;
}

/**
 * A raw HTTP/1.1 upload: headers that announce `declared` bytes, then `send` bytes written as fast as
 * the socket takes them; waits until the server closes the connection.
 */
function rawUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  declared: number,
  send = declared,
  onSocket: (socket: Socket) => void = () => {},
): Promise<Upload> {
  return new Promise((resolve) => {
    const started = Date.now();
    // Half-open allowed: like an uploader, the client goes on sending after the server's FIN.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    onSocket(socket);
    const chunks: Buffer[] = [];
    let sent = 0;
    let error: string | undefined;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    socket.on('data', (d) => chunks.push(d));
    // Once it has sent what it meant to and the server has closed its side, the client closes its
    // own; a client that stalls (sends less than it declared) never does.
    let ended = false;
    const finish = () => {
      if (ended && sent >= declared) socket.end();
    };
    socket.on('end', () => {
      ended = true;
      finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ received: Buffer.concat(chunks).toString(), sent, error, ms: Date.now() - started }));
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', 'content-length': String(declared), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    const pump = () => {
      while (sent < send && !socket.destroyed) {
        const n = Math.min(chunk.length, send - sent);
        sent += n;
        if (!socket.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          socket.once('drain', pump);
          return;
        }
      }
      finish();
    };
    pump();
  });
}

function assert413(upload: Upload, what: string) {
  assert.match(upload.received, /^HTTP\/1\.1 413 /, `${what}: no 413 read (client error ${upload.error}, ${upload.sent} bytes sent)`);
  const body = JSON.parse(upload.received.slice(upload.received.indexOf('\r\n\r\n') + 4));
  assert.equal(body.error.code, 'PAYLOAD_TOO_LARGE', what);
  assert.ok(body.error.correlationId, what);
  assert.match(upload.received, /\r\nconnection: close\r\n/i, what);
}

describe('a body over the limit: the 413 reaches the client (lingering close)', () => {
  let server: TestServer;
  let org: TestOrg;
  const limit = 5 * 1024 * 1024;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  test('thirty raw uploads of 5 MB + 10 bytes: every client reads the 413 envelope, none sees EPIPE', async () => {
    for (let i = 0; i < 30; i++) {
      const upload = await rawUpload(server.port, `/v1/orgs/${org.orgId}/templates`, { 'x-api-key': org.key }, limit + 10);
      assert413(upload, `upload ${i}`);
      assert.equal(upload.error, undefined, `upload ${i}: ${upload.error}`);
      assert.equal(upload.sent, limit + 10, `upload ${i}: the whole body was accepted`);
    }
    // The service goes on serving.
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
  });

  test('node:http clients uploading 5 MB + 10 bytes ten at a time all get the 413', async () => {
    const body = Buffer.alloc(limit + 10, 0x20);
    const one = () =>
      new Promise<{ status: number; code: string }>((resolve, reject) => {
        const req = httpRequest(
          `${server.url}/v1/orgs/${org.orgId}/users`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': org.key } },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).error.code }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, one));
      for (const a of answers) assert.deepEqual(a, { status: 413, code: 'PAYLOAD_TOO_LARGE' });
    }
  });
});

describe('the lingering is bounded', () => {
  let server: TestServer;
  let org: TestOrg;
  const limit = 64 * 1024;
  before(async () => {
    server = await startServer({ BODY_LIMIT_BYTES: String(limit) });
    org = await createOrg(server);
  });
  after(() => server.close());

  test('chunked uploads (no Content-Length) refused part-way also get their 413', async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          `${server.url}/v1/orgs/${org.orgId}/templates`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': org.key } },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve(`${res.statusCode} ${JSON.parse(text).error.code}`));
          },
        );
        req.on('error', reject);
        // 112 KB against a 64 KB limit, in chunks: the limit is found while the body arrives.
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        let n = 0;
        const pump = () => {
          while (n < 7) {
            n++;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      assert.equal(answer, '413 PAYLOAD_TOO_LARGE');
    }
  });

  test('a client that stops sending is disconnected after the idle bound, its 413 read', async () => {
    const started = Date.now();
    let client: Socket | undefined;
    const stalled = rawUpload(server.port, `/v1/orgs/${org.orgId}/templates`, { 'x-api-key': org.key }, 10 * limit, 2 * 1024, (s) => (client = s));
    // The client cannot see the close (the server's FIN came with the answer): watch the server's side.
    const connections = () => new Promise<number>((resolve, reject) => server.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    while ((await connections()) === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
    while ((await connections()) > 0 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 50));
    const ms = Date.now() - started;
    // The idle bound is 2 s; generous for a loaded machine.
    assert.ok(ms >= 1_500 && ms < 10_000, `closed after ${ms} ms`);
    // The client had its answer all along.
    client?.destroy();
    const upload = await stalled;
    assert413(upload, 'stalled upload');
  });

  test('a client that keeps sending is cut off after at most one more body limit of bytes', async () => {
    const declared = 200 * 1024 * 1024;
    const upload = await rawUpload(server.port, `/v1/orgs/${org.orgId}/templates`, { 'x-api-key': org.key }, declared);
    // Socket buffers on both sides hold a few MB beyond what the server read.
    assert.ok(upload.sent < declared / 4, `the server read on: ${upload.sent} bytes sent`);
    assert.ok(upload.ms < 15_000, `closed after ${upload.ms} ms`);
  });
});
