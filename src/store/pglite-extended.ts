// A statement with parameters on the embedded database in one exchange with PGlite, as
// node-postgres sends it to a server: Parse, Bind, Describe, Execute and Sync together, the
// parameters as text of no declared type (PostgreSQL infers each from the statement, as it does
// for the same statements from pg on a PostgreSQL server). PGlite's own `query` enters its
// WebAssembly once per message and once more to describe the parameters' types before it binds
// them: six round trips, ~45 % of a short statement's CPU (an INSERT of one row 238–269 µs against
// 144–156 this way, a `SELECT $1` 110–118 against 67–76; BENCHMARKS.md, "One exchange a
// statement"). Written here because PGlite offers no such call; the messages are made and read by
// PGlite's own protocol code.
import { parse, protocol, types, type PGlite, type Results } from '@electric-sql/pglite';

const { serialize } = protocol;

/**
 * A parameter as the text PostgreSQL reads, the way node-postgres spells it (`prepareValue`), so
 * that both stores receive the same input: bytes in hex, instants in ISO 8601, arrays as array
 * literals, other objects as JSON.
 */
export function parameterText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return types.arraySerializer(value, (v) => parameterText(v) as string, 0);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Runs one statement with parameters; a PostgreSQL error is thrown as PGlite throws it, with the statement's text. */
export function extendedQuery(client: PGlite, text: string, parameters: readonly unknown[]): Promise<Results> {
  const message = concat([
    serialize.parse({ text, types: [] }),
    serialize.bind({ values: parameters.map(parameterText) }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    serialize.sync(),
  ]);
  return client.runExclusive(async () => {
    try {
      const { messages } = await client.execProtocol(message);
      return parse.parseResults(messages, client.parsers)[0] as Results;
    } catch (err) {
      if (typeof err === 'object' && err !== null) Object.assign(err, { query: text });
      throw err;
    }
  });
}
