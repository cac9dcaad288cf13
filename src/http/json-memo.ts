// Hot read routes answer the same cached resource many times between changes. The JSON text of
// each presented resource is kept beside the cached object it came from (a WeakMap, so it goes
// when that object leaves its cache, and a changed resource is a new object), and a repeated read
// skips presenting and serializing: on the org and render routes that was about a tenth of the
// request's cost (BENCHMARKS.md). The text comes from the same serializer as the route's response
// schema, so it is byte for byte what Fastify would have sent.
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { compileSerializer } from './serializer.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

export class JsonMemo<From extends object, S extends z.ZodType> {
  readonly #texts = new WeakMap<From, string>();
  readonly #serialize: (data: unknown) => string;
  readonly #present: (from: From) => z.output<S>;

  constructor(schema: S, present: (from: From) => z.output<S>) {
    this.#serialize = compileSerializer(schema);
    this.#present = present;
  }

  text(from: From): string {
    let text = this.#texts.get(from);
    if (text === undefined) {
      text = this.#serialize(this.#present(from));
      this.#texts.set(from, text);
    }
    return text;
  }

  /** Sends the resource's JSON text (Fastify sends a string with a JSON content type as it is). */
  send(reply: FastifyReply, from: From): FastifyReply {
    return reply.type(JSON_TYPE).send(this.text(from));
  }
}
