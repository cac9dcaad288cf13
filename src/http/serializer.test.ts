import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { compileSerializer } from './serializer.ts';
import { unchangingAnswer } from '../kernel/unchanging.ts';

const schema = z.object({ html: z.string(), n: z.number() });

/** An answer whose `html` counts how often a serializer read it. */
function counted(html: string): { answer: { html: string; n: number }; reads: () => number } {
  let reads = 0;
  const answer = {
    get html() {
      reads++;
      return html;
    },
    n: 1,
  };
  return { answer, reads: () => reads };
}

test('an answer marked unchanging is serialized once per schema; its JSON is the same each time', () => {
  const serialize = compileSerializer(schema);
  const { answer, reads } = counted('<a href="x">"quoted"</a>');
  unchangingAnswer(answer);
  const first = serialize(answer);
  assert.equal(first, JSON.stringify({ html: '<a href="x">"quoted"</a>', n: 1 }));
  assert.equal(serialize(answer), first);
  assert.equal(reads(), 1);
  // Another route's schema makes its own JSON of it.
  const other = compileSerializer(z.object({ n: z.number() }));
  assert.equal(other(answer), '{"n":1}');
});

test('any other answer is serialized anew each time: a change shows', () => {
  const serialize = compileSerializer(schema);
  const { answer, reads } = counted('one');
  assert.equal(serialize(answer), '{"html":"one","n":1}');
  answer.n = 2;
  assert.equal(serialize(answer), '{"html":"one","n":2}');
  assert.equal(reads(), 2);
});
