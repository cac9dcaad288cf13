// The steps every deployment target shares (the billing gate, the render, its length, the row an
// outcome leaves), and how Gmail and the Outlook add-in each deploy a signature.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AppError } from '../kernel/errors.ts';
import type { Rendered } from '../render/service.ts';
import { gmailTarget } from '../google/gmail-target.ts';
import { GoogleError } from '../google/errors.ts';
import type { GoogleCredentials } from '../google/client.ts';
import { outlookTarget } from '../outlook/addin-target.ts';
import { contentHash, deploymentWrite, prepareSignature, type Signature } from './target.ts';

const rendered = (html: string): Rendered => ({ userId: 'u1', templateId: 't1', ruleId: null, html, text: 'Ada', bytes: html.length, warnings: [] });
const input = { orgId: 'o1', userId: 'u1', blocked: false };

test('a signature is rendered for the target with its hash; past grace nothing is rendered', async () => {
  let renders = 0;
  const render = async () => {
    renders++;
    return rendered('<p>Ada</p>');
  };
  const ready = await prepareSignature(outlookTarget, render, input);
  assert.deepEqual(ready, {
    state: 'ready',
    signature: { html: '<p>Ada</p>', text: 'Ada', contentHash: createHash('sha256').update('<p>Ada</p>').digest('base64url') },
  });
  assert.deepEqual(await prepareSignature(outlookTarget, render, { ...input, blocked: true }), { state: 'skipped', reason: 'payment_required' });
  assert.equal(renders, 1, 'a blocked org renders nothing');
});

test("longer than the target takes, or over the render's own limit, is too long; other render failures go on", async () => {
  const html = `<p>${'x'.repeat(10_000)}</p>`;
  const long = async () => rendered(html);
  assert.deepEqual(await prepareSignature(gmailTarget({} as never, {} as GoogleCredentials), long, input), {
    state: 'skipped',
    reason: 'too_long',
    chars: html.length,
  });
  assert.equal((await prepareSignature(outlookTarget, long, input)).state, 'ready', "within Outlook's 30,000");
  const refusal = new AppError('PAYLOAD_TOO_LARGE', 'The rendered signature is over 30 KB.');
  const over = await prepareSignature(outlookTarget, async () => Promise.reject(refusal), input);
  assert.deepEqual(over, { state: 'skipped', reason: 'too_long', cause: refusal });
  const broken = new Error('the render pool is gone');
  await assert.rejects(
    prepareSignature(outlookTarget, async () => Promise.reject(broken), input),
    broken,
  );
});

test('each outcome leaves its row: the hash and time when deployed, the reason when skipped, the error when failed', () => {
  const at = new Date('2026-11-25T12:00:00Z');
  assert.deepEqual(deploymentWrite('gmail', 'o1', 'u1', { state: 'deployed', contentHash: 'h' }, at), {
    orgId: 'o1',
    userId: 'u1',
    target: 'gmail',
    state: 'deployed',
    reason: null,
    error: null,
    deployed: { contentHash: 'h', at },
  });
  assert.deepEqual(deploymentWrite('outlook', 'o1', 'u1', { state: 'skipped', reason: 'too_long' }, at), {
    orgId: 'o1',
    userId: 'u1',
    target: 'outlook',
    state: 'skipped',
    reason: 'too_long',
    error: null,
  });
  const failed = deploymentWrite('gmail', 'o1', 'u1', { state: 'failed', error: 'Google refused.', stop: new Error('x') }, at);
  assert.deepEqual([failed.state, failed.reason, failed.error, failed.deployed], ['failed', null, 'Google refused.', undefined]);
});

const signature: Signature = { html: '<p>Ada</p>', text: 'Ada', contentHash: contentHash('<p>Ada</p>') };
const user = { id: 'u1', email: 'ada@corp.test' };

/** Gmail whose PATCH answers `outcome` (what its client does with Google's answer). */
function gmailAnswering(outcome: GoogleError | undefined) {
  const sent: { email: string; html: string }[] = [];
  const client = {
    async patchSignature(_c: GoogleCredentials, email: string, html: string) {
      sent.push({ email, html });
      if (outcome) throw outcome;
    },
  };
  return { target: gmailTarget(client, {} as GoogleCredentials), sent };
}

test("Gmail: the signature goes to the user's send-as address; each refusal becomes its outcome, a transient one is the queue's", async () => {
  const ok = gmailAnswering(undefined);
  assert.deepEqual(await ok.target.deploy(user, signature), { state: 'deployed', contentHash: signature.contentHash });
  assert.deepEqual(ok.sent, [{ email: 'ada@corp.test', html: '<p>Ada</p>' }]);
  assert.deepEqual(await gmailAnswering(new GoogleError('unknown_user', 'no such user')).target.deploy(user, signature), {
    state: 'skipped',
    reason: 'not_in_directory',
  });
  assert.deepEqual(await gmailAnswering(new GoogleError('too_long', 'over 10,000')).target.deploy(user, signature), { state: 'skipped', reason: 'too_long' });
  assert.deepEqual(await gmailAnswering(new GoogleError('mail_disabled', 'Gmail is not enabled')).target.deploy(user, signature), {
    state: 'failed',
    error: 'Gmail is not enabled',
  });
  const revoked = new GoogleError('key_invalid', 'the key was deleted');
  assert.deepEqual(await gmailAnswering(revoked).target.deploy(user, signature), { state: 'failed', error: 'the key was deleted', stop: revoked });
  const transient = new GoogleError('transient', 'Google answered 503');
  await assert.rejects(gmailAnswering(transient).target.deploy(user, signature), transient);
});

test('the Outlook add-in: answering the add-in is the deployment', async () => {
  assert.deepEqual(await outlookTarget.deploy(user, signature), { state: 'deployed', contentHash: signature.contentHash });
  assert.deepEqual([outlookTarget.name, outlookTarget.maxChars], ['outlook', 30_000]);
});
