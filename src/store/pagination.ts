// Keyset pagination over an identity column: stable under concurrent inserts (a page never
// repeats or skips a row that existed when the listing began), and an opaque cursor for clients.
// The position is the row's unique integer key itself, never a timestamp: a timestamp shared by
// several rows (one transaction's now()), or cut to milliseconds on its way through a JS Date, would
// make rows fall between pages.
import { badRequest } from '../kernel/errors.ts';
import { isStorable } from '../lib/text.ts';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(position: string): string {
  return Buffer.from(`p:${position}`).toString('base64url');
}

// Positions are bigint identity columns: a larger number would reach the database as an error (a 500).
const MAX_POSITION = 2n ** 63n - 1n;

/**
 * The position a cursor of encodeCursor holds, or a 400 for anything else. Node's base64url decoder
 * skips characters outside the alphabet, so only a cursor that encodes back to itself is taken.
 */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const match = /^p:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const position = match?.[1];
  if (position === undefined || BigInt(position) > MAX_POSITION || encodeCursor(position) !== cursor) {
    throw badRequest('query.cursor: is not a cursor this service issued', { field: 'query.cursor' });
  }
  return position;
}

/** Rows were fetched with limit + 1: the extra row only says that another page exists. */
export function toPage<R, T>(rows: R[], limit: number, position: (row: R) => string, present: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { items: kept.map(present), nextCursor: more && last ? encodeCursor(position(last)) : null };
}

/** Where a page ended in a list sorted by a text key: the key, and the seq that breaks its ties. */
export interface KeyedPosition {
  key: string;
  seq: string;
}

/**
 * Cursors of the lists sorted by a text key (a name, a role) carry the key as well as the seq. Like
 * the seq-only ones above, a cursor is taken only if it encodes back to itself.
 */
export function encodeKeyedCursor(position: KeyedPosition): string {
  return Buffer.from(`n:${JSON.stringify([position.key, position.seq])}`).toString('base64url');
}

export function decodeKeyedCursor(cursor: string | undefined): KeyedPosition | undefined {
  if (cursor === undefined) return undefined;
  const refuse = () => badRequest('query.cursor: is not a cursor this service issued', { field: 'query.cursor' });
  const textForm = Buffer.from(cursor, 'base64url').toString();
  if (!textForm.startsWith('n:')) throw refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(textForm.slice(2));
  } catch {
    throw refuse();
  }
  // 18 digits stay below bigint's limit; a key the database cannot hold would be its 500.
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw refuse();
  if (!/^\d{1,18}$/.test(parsed[1]) || !isStorable(parsed[0])) throw refuse();
  const position = { key: parsed[0], seq: parsed[1] };
  if (encodeKeyedCursor(position) !== cursor) throw refuse();
  return position;
}
