// A graceful stop finishes the requests in flight (the README promises it: a rolling restart loses
// no request). The request is held open by its body: the service has read its headers (it answered
// `100 Continue`) when SIGTERM arrives, and the body only follows once the service said it is
// stopping; the answer must still be the real one, and the process must then exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startProcess } from './helpers/process.ts';
import { freePort } from './helpers/server.ts';
import { seededDataDir } from './helpers/snapshot.ts';
import { event, SECRET, signedHeader } from './helpers/payments.ts';
import { waitFor } from './helpers/wait.ts';
import { ON_POSTGRES } from './helpers/pg.ts';

test('SIGTERM: a request in flight gets its answer, then the process exits 0', async (t) => {
  // The stop is the process's, whatever the store: it is shown once, on the embedded database.
  if (ON_POSTGRES) return t.skip('shown on the embedded database');
  const store = await seededDataDir('sigsvc-shutdown-');
  t.after(store.cleanup);
  const service = await startProcess({ DATA_DIR: store.dir, DATABASE_URL: '', WEBHOOK_SECRET: SECRET }, await freePort());
  t.after(() => service.stop());

  const body = JSON.stringify(event('invoice.paid', { id: 'in_test', customer: 'cus_nobody' }));
  const req = request(`${service.url}/v1/webhooks/payment-provider`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'provider-signature': signedHeader(body),
      expect: '100-continue',
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
  });
  // The service has the request (its headers parsed) once it asks for the body.
  await new Promise<void>((resolve) => req.once('continue', resolve));
  process.kill(service.pid!, 'SIGTERM');
  await waitFor(() => /finishing requests in flight/.test(service.output()), 'the service to start stopping');
  req.end(body);

  const res = await answer;
  assert.equal(res.status, 200, res.text);
  assert.equal(JSON.parse(res.text).received, true);
  assert.equal(await service.exit, 0, service.output());
  assert.match(service.output(), /"msg":"stopped"/);
});
