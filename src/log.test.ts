import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { lazyChildLogger } from './log.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const root = pino({ level, base: undefined }, stream);
  let children = 0;
  const child = root.child.bind(root);
  root.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof root.child;
  return { root, lines, children: () => children };
}

const make = (root: pino.Logger, bindings: pino.Bindings) => lazyChildLogger.call(undefined as never, root, bindings, {}, undefined as never);

test('the per-request logger is made on the first line that is written, with its bindings', async () => {
  const { root, lines, children } = capture('warn');
  const log = make(root, { correlationId: 'c-1' });
  log.info({ a: 1 }, 'not written at warn');
  log.debug('nor this');
  assert.equal(children(), 0, 'no pino child while nothing is written');
  log.warn({ b: 2 }, 'written');
  log.error('and this');
  assert.equal(children(), 1, 'one child, reused');
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 2);
  assert.equal(lines[0]?.correlationId, 'c-1');
  assert.equal(lines[0]?.b, 2);
  assert.equal(lines[0]?.msg, 'written');
  assert.equal(lines[1]?.msg, 'and this');
  assert.equal(log.level, 'warn');
});

test("a child of the per-request logger keeps the request's bindings", async () => {
  const { root, lines } = capture('info');
  const log = make(root, { correlationId: 'c-2' }).child({ part: 'x' });
  log.info('hello');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual([lines[0]?.correlationId, lines[0]?.part], ['c-2', 'x']);
});

test('a route-level level gets a real child at once', () => {
  const { root, children } = capture('warn');
  const log = lazyChildLogger.call(undefined as never, root, { correlationId: 'c-3' }, { level: 'debug' }, undefined as never);
  assert.equal(children(), 1);
  assert.equal(log.level, 'debug');
});
