// Responses are described by zod schemas (one source for types, validation and the OpenAPI
// document) but serialized by fast-json-stringify from their JSON Schema, compiled once per
// route. fastify-type-provider-zod's own serializer runs zod's encoder on every response, which
// the benchmarks showed among the largest fixed costs of the hot routes (BENCHMARKS.md).
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => compileSerializer(schema);

export function compileSerializer(schema: unknown): (data: unknown) => string {
  if (!(schema instanceof z.ZodType)) return (data) => JSON.stringify(data);
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' });
  return fastJson(json as Parameters<typeof fastJson>[0]);
}
