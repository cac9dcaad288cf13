// A form field's length limits as the API declares them (maxLength / minLength of the operation's
// body field in the OpenAPI document, built in by web/build.ts), so an input stops where the
// service would refuse and no form copies a number.
import limits from 'virtual:field-limits';
import type { operations } from './types.ts';

type JsonBodyOf<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;

/** The longest value the API accepts for `field` of `operation`'s body (undefined: no limit). */
export function maxLengthOf<Op extends keyof operations>(operation: Op, field: keyof JsonBodyOf<Op> & string): number | undefined {
  return limits[operation]?.[field]?.maxLength;
}
