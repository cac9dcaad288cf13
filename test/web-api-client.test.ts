// The web apps' API client (web/shared/api/client.ts) against a local HTTP server: the ID token on
// every call, one renewal on a 401 then a new sign-in, Retry-After honoured on a 429, the 402 hook,
// and the envelope's message on the error thrown.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, createApi, type TokenSource } from '../web/shared/api/client.ts';
import { ApiError, errorMessage } from '../web/shared/api/errors.ts';

const ORG = '7d0f6c3e-2b8a-4f1e-9c5d-3a6b1e8f0c27';

interface Seen {
  auth: string | undefined;
  at: number;
}

describe('the web apps’ API client', () => {
  let server: Server;
  let base: string;
  let answers: { status: number; body: unknown; headers?: Record<string, string>; hang?: boolean }[] = [];
  let seen: Seen[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ auth: req.headers.authorization, at: Date.now() });
      const next = answers.shift() ?? { status: 200, body: { orgId: ORG } };
      if (next.hang) return; // never answers
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );

  function fakeSession(opts: { renews: boolean }) {
    let token = 'token-1';
    const calls = { renew: 0, signIn: 0 };
    const session: TokenSource = {
      config: { apiUrl: base },
      token: async () => token,
      renew: async () => {
        calls.renew++;
        if (opts.renews) token = 'token-2';
        return opts.renews;
      },
      signIn: async () => {
        calls.signIn++;
        return undefined as never;
      },
    };
    return { session, calls };
  }

  const getOrg = (api: ReturnType<typeof createApi>) => call(api.GET('/v1/orgs/{orgId}', { params: { path: { orgId: ORG } } }));

  test('sends the ID token; a 401 renews it once and the call goes through', async () => {
    seen = [];
    answers = [{ status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'The ID token has expired.' } } }];
    const { session, calls } = fakeSession({ renews: true });
    const org = await getOrg(createApi(session));
    assert.equal(org.orgId, ORG);
    assert.deepEqual(
      seen.map((s) => s.auth),
      ['Bearer token-1', 'Bearer token-2'],
    );
    assert.deepEqual(calls, { renew: 1, signIn: 0 });
  });

  test('a 401 that renewal cannot cure sends the person to sign in again', async () => {
    seen = [];
    answers = [{ status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'Signed out.' } } }];
    const { session, calls } = fakeSession({ renews: false });
    await assert.rejects(getOrg(createApi(session)), (err: unknown) => err instanceof ApiError && err.status === 401);
    assert.deepEqual(calls, { renew: 1, signIn: 1 });
  });

  test('a 429 waits Retry-After, then tries again', async () => {
    seen = [];
    answers = [{ status: 429, body: { error: { code: 'TOO_MANY_REQUESTS', message: 'Slow down.' } }, headers: { 'retry-after': '1' } }];
    const { session } = fakeSession({ renews: true });
    await getOrg(createApi(session));
    assert.equal(seen.length, 2);
    assert.ok(seen[1]!.at - seen[0]!.at >= 900, `waited ${seen[1]!.at - seen[0]!.at} ms`);
  });

  test('a 402 calls the payment hook and throws the envelope’s message', async () => {
    answers = [
      {
        status: 402,
        body: {
          error: { code: 'PAYMENT_REQUIRED', message: 'The grace period ended on 1 May.', correlationId: 'c-1', details: { blockedBy: 'grace_expired' } },
        },
      },
    ];
    const { session } = fakeSession({ renews: true });
    let hooked = 0;
    const api = createApi(session, { onPaymentRequired: () => hooked++ });
    const err = await getOrg(api).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'PAYMENT_REQUIRED');
    assert.equal(err.correlationId, 'c-1');
    assert.equal(errorMessage(err), 'The grace period ended on 1 May.');
    assert.equal(hooked, 1);
  });

  test('a request the service never answers fails after the timeout, with a sentence that says so', async () => {
    seen = [];
    answers = [{ status: 200, body: null, hang: true }];
    const { session } = fakeSession({ renews: true });
    const err = await getOrg(createApi(session, { timeoutMs: 200 })).catch((e: unknown) => e);
    assert.ok(err instanceof DOMException && err.name === 'TimeoutError', `a timeout, not ${String(err)}`);
    assert.equal(errorMessage(err), 'The service took too long to answer. Try again in a moment.');
    assert.equal(seen.length, 1, 'asked once');
  });

  test('an answer without an envelope still reads as a sentence', async () => {
    answers = [{ status: 502, body: 'Bad gateway' }];
    const { session } = fakeSession({ renews: true });
    const err = await getOrg(createApi(session)).catch((e: unknown) => e);
    assert.equal(errorMessage(err), 'The service could not answer. Try again in a moment.');
  });
});
