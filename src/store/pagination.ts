// Keyset pagination over an identity column: stable under concurrent inserts (a page never
// repeats or skips a row that existed when the listing began), and an opaque cursor for clients.
import { badRequest } from '../errors.ts';

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

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString();
  const match = /^p:(\d{1,19})$/.exec(decoded);
  if (!match) throw badRequest('query.cursor: is not a cursor this service issued', { field: 'query.cursor' });
  return match[1];
}

/** Rows were fetched with limit + 1: the extra row only says that another page exists. */
export function toPage<R, T>(rows: R[], limit: number, position: (row: R) => string, present: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { items: kept.map(present), nextCursor: more && last ? encodeCursor(position(last)) : null };
}
