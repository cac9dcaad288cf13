// What PostgreSQL can store as text: its `text` refuses U+0000 and an unpaired surrogate cannot be
// encoded as UTF-8 (its JSON refuses them too), though both are valid in a JavaScript or JSON
// string. Client input is checked against this before it reaches the database.

/** Whether the string holds neither NUL nor an unpaired surrogate, so it can be stored as it is. */
export function isStorable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}
