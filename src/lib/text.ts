// What PostgreSQL can store as text: its `text` refuses U+0000 and an unpaired surrogate cannot be
// encoded as UTF-8 (its JSON refuses them too), though both are valid in a JavaScript or JSON
// string. Client input is checked against this before it reaches the database.
import { z } from 'zod';

/** Whether the string holds neither NUL nor an unpaired surrogate, so it can be stored as it is. */
export function isStorable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/**
 * A string a client sends, refused (a 400 naming it) unless it is storable: the HTTP layer's
 * `text()` (http/schemas.ts), and here for schemas a capability declares below that layer (a
 * design's). Chain `.trim()`, `.min()`, `.max()` after it: the check sees the string as it was sent.
 */
export const storableText = () =>
  z.string().refine(isStorable, {
    message: 'must not contain NUL (U+0000) or unpaired surrogate characters',
    abort: true,
  });
