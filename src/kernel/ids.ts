// The one spelling of a UUID for code that checks ids outside a zod schema (zod's `z.uuid()` is
// stricter about versions; these accept any UUID-shaped id, as the database's uuid type does).
const HEX = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const EXACT = new RegExp(`^${HEX}$`, 'i');

export function isUuid(value: string): boolean {
  return EXACT.test(value);
}

/** Every UUID inside a text (global: use with `replace`, not with `test`). */
export const UUIDS_IN_TEXT = new RegExp(`\\b${HEX}\\b`, 'gi');
