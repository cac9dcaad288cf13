// Responses are described by zod schemas (one source for types, validation and the OpenAPI
// document) but serialized by fast-json-stringify from their JSON Schema. fastify-type-provider-zod's
// own serializer runs zod's encoder on every response, which the benchmarks showed among the
// largest fixed costs of the hot routes (BENCHMARKS.md).
//
// Each schema is compiled once, when a route first answers with it: compiling every route's
// serializers at start-up was ~0.2 s of CPU per app (of ~60 routes, a process serves a few), and
// the test suite starts a hundred apps. The first answer of a route pays a few ms. Schemas are
// held weakly: the ones a route plugin builds as it registers go with their app. An answer marked
// unchanging (src/kernel/unchanging.ts) is serialized once per schema while it lives.
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';
import { isUnchanging } from '../kernel/unchanging.ts';

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => compileSerializer(schema);

type Serialize = (data: unknown) => string;
const compiled = new WeakMap<z.ZodType, Serialize>();
const named = new WeakSet<z.ZodType>();
let namedRefs: WeakRef<z.ZodType>[] = [];

export function compileSerializer(schema: unknown): Serialize {
  if (!(schema instanceof z.ZodType)) return (data) => JSON.stringify(data);
  if (!named.has(schema)) {
    named.add(schema);
    namedRefs.push(new WeakRef(schema));
  }
  let serialize: Serialize | undefined;
  let kept: WeakMap<object, string> | undefined;
  return (data) => {
    serialize ??= compiledNow(schema);
    if (!isUnchanging(data)) return serialize(data);
    kept ??= new WeakMap();
    let json = kept.get(data);
    if (json === undefined) {
      json = serialize(data);
      kept.set(data, json);
    }
    return json;
  };
}

/** Compiles every schema a live route has named; a test proves they all compile. */
export function compileAllSerializers(): number {
  namedRefs = namedRefs.filter((ref) => ref.deref() !== undefined);
  for (const ref of namedRefs) {
    const schema = ref.deref();
    if (schema) compiledNow(schema);
  }
  return namedRefs.length;
}

function compiledNow(schema: z.ZodType): Serialize {
  let serialize = compiled.get(schema);
  if (!serialize) {
    serialize = compileNow(schema);
    compiled.set(schema, serialize);
  }
  return serialize;
}

function compileNow(schema: z.ZodType): Serialize {
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' });
  return fastJson(json as Parameters<typeof fastJson>[0]);
}
