// The render worker pool on its own: a template's limit is its own CPU time, not the wall clock
// (the same template passes on a busy machine), and the wall-clock safety net ends a stuck worker
// with a 400 while the pool keeps serving.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { createRenderPool } from '../src/render/pool.ts';
import { SAMPLE_SCOPE } from '../src/render/compile.ts';
import { AppError } from '../src/kernel/errors.ts';
import { waitFor } from './helpers/wait.ts';

const LIMIT = 30_720;

/** Threads that keep every core busy, so the render worker gets a fraction of the wall clock. */
function spinners(n: number): Worker[] {
  return Array.from({ length: n }, () => new Worker('for (;;) {}', { eval: true }));
}

describe('render worker pool', () => {
  const pool = createRenderPool({ threads: 1 });
  after(() => pool.close());

  test('the render limit counts the template’s CPU time: a template near it passes however busy the machine is', async () => {
    // Calibrate a loop to about 40 ms of this machine's CPU for one render, idle.
    const template = (n: number) => `{% for i in (1..${n}) %}{% for j in (1..100) %}{{ i }}{% endfor %}{% endfor %}`;
    let n = 20;
    for (;;) {
      const compiled = await pool.compile({ orgId: 'test', html: template(n), text: '' }).catch((e: unknown) => e);
      assert.ok(!(compiled instanceof Error), `calibration refused at ${n}: ${String(compiled)}`);
      const started = performance.now();
      await pool
        .render({ orgId: 'test', key: `cal:${n}`, htmlPrepared: template(n), text: '', scope: SAMPLE_SCOPE, limitBytes: 10_000_000 })
        .catch(() => undefined);
      if (performance.now() - started >= 40 || n > 20_000) break;
      n = Math.ceil(n * 1.5);
    }
    const htmlPrepared = template(n);
    const busy = spinners(6);
    try {
      const wallStarted = performance.now();
      const rendered = await pool.render({ orgId: 'test', key: `busy:${n}`, htmlPrepared, text: '', scope: SAMPLE_SCOPE, limitBytes: 10_000_000 });
      const wallMs = performance.now() - wallStarted;
      assert.ok(rendered.bytes > 0);
      console.log(`a render of 40-60 ms (wall clock, idle) took ${wallMs.toFixed(0)} ms of wall clock with 6 busy threads on this machine`);
      // Forty times the work is past the limit, busy or not (a busy machine's 40 ms of wall clock
      // may be far less CPU).
      const heavy = await pool
        .render({ orgId: 'test', key: `heavy:${n}`, htmlPrepared: template(n * 40), text: '', scope: SAMPLE_SCOPE, limitBytes: 10_000_000 })
        .catch((e: unknown) => e);
      assert.ok(heavy instanceof AppError && heavy.code === 'BAD_REQUEST', String(heavy));
      assert.match(heavy.message, /CPU time/);
    } finally {
      await Promise.all(busy.map((w) => w.terminate()));
    }
  });

  test('a thread with no work for idleMs stops, and the next template work starts one again', async () => {
    const idle = createRenderPool({ threads: 1, idleMs: 200 });
    try {
      await idle.warm();
      assert.equal(idle.threads(), 1);
      const render = (key: string) =>
        idle.render({ orgId: 'test', key, htmlPrepared: '<p>{{ user.name }}</p>', text: '', scope: SAMPLE_SCOPE, limitBytes: LIMIT });
      assert.match((await render('first')).html, /<p>.+<\/p>/);
      await waitFor(() => idle.threads() === 0, 'the idle thread to stop', 10_000);
      // Work after it stopped waits for a new thread, and is answered as before.
      assert.match((await render('again')).html, /<p>.+<\/p>/);
      assert.equal(idle.threads(), 1);
    } finally {
      await idle.close();
    }
  });

  test('without idleMs, or with 0 (RENDER_THREAD_IDLE_MS=0), the threads stay', async () => {
    const kept = [createRenderPool({ threads: 1 }), createRenderPool({ threads: 1, idleMs: 0 })];
    try {
      await Promise.all(kept.map((p) => p.warm()));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        kept.map((p) => p.threads()),
        [1, 1],
      );
    } finally {
      await Promise.all(kept.map((p) => p.close()));
    }
  });

  test('the wall-clock safety net ends a stuck task with a 400 naming the field; the pool goes on', async () => {
    const strict = createRenderPool({ threads: 1, timeoutMs: 1 });
    try {
      const err = await strict.compile({ orgId: 'test', html: '<p>{{ user.name }}</p>', text: '' }).catch((e: unknown) => e);
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, 'BAD_REQUEST');
      assert.equal(err.details?.field, 'body.html');
      assert.match(err.message, /took longer than/);
    } finally {
      await strict.close();
    }
    const ok = await pool.compile({ orgId: 'test', html: '<p>{{ user.name }}</p>', text: '' });
    assert.equal(ok.htmlPrepared, '<p>{{ user.name }}</p>');
  });

  test('work that waited past maxWaitMs for its turn is a 503, not started late; the safety net of a task is apart from it', async () => {
    const waiting = createRenderPool({ threads: 1, maxWaitMs: 30 });
    try {
      // A render that spends its whole CPU limit (~100 ms) holds the one thread past the wait bound.
      const slow = waiting
        .render({
          orgId: 'a',
          key: 'slow',
          htmlPrepared: '{% for i in (1..300) %}{% for j in (1..300) %}{% for k in (1..300) %}{% endfor %}{% endfor %}{% endfor %}',
          text: '',
          scope: SAMPLE_SCOPE,
          limitBytes: LIMIT,
        })
        .catch((e: unknown) => e);
      const late = await waiting.compile({ orgId: 'b', html: '<p>late</p>', text: '' }).catch((e: unknown) => e);
      assert.ok(late instanceof AppError, String(late));
      assert.equal(late.code, 'SERVICE_UNAVAILABLE');
      assert.ok((await slow) instanceof AppError, 'the slow render is refused by its CPU limit');
      const next = await waiting.compile({ orgId: 'b', html: '<p>now</p>', text: '' });
      assert.equal(next.htmlPrepared, '<p>now</p>', 'work that did not wait runs');
    } finally {
      await waiting.close();
    }
  });

  test('output over the limit is 413; refusals come back as the error they are', async () => {
    const big = await pool
      .render({
        orgId: 'test',
        key: 'big',
        htmlPrepared: `{% for i in (1..2000) %}<p>{{ user.name }}</p>{% endfor %}`,
        text: '',
        scope: SAMPLE_SCOPE,
        limitBytes: LIMIT,
      })
      .catch((e: unknown) => e);
    assert.ok(big instanceof AppError && big.code === 'PAYLOAD_TOO_LARGE', String(big));
    assert.equal(big.details?.limitBytes, LIMIT);
    const syntax = await pool.compile({ orgId: 'test', html: '{{ user.name', text: '' }).catch((e: unknown) => e);
    assert.ok(syntax instanceof AppError && syntax.code === 'BAD_REQUEST', String(syntax));
  });
});
