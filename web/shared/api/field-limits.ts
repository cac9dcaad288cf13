// Limits as the API declares them in the OpenAPI document (built in by web/build.ts): a form
// field's maxLength, so an input stops where the service would refuse, and a list's largest page,
// for the reads that want "all of them"; no page copies a number.
import limits from 'virtual:field-limits';
import type { operations } from './types.ts';

type JsonBodyOf<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;

/** The longest value the API accepts for `field` of `operation`'s body (undefined: no limit). */
export function maxLengthOf<Op extends keyof operations>(operation: Op, field: keyof JsonBodyOf<Op> & string): number | undefined {
  return limits.fields[operation]?.[field]?.maxLength;
}

/**
 * Every bound the API declares at a path into `operation`'s body, nested fields included:
 * `boundOf('createCampaign', 'variants').maxItems`, `boundOf('createCampaign', 'variants[].alt').maxLength`
 * (arrays' items are `[]`, a map's values `.*`).
 */
export function boundOf(
  operation: keyof operations,
  path: string,
): { minimum?: number; maximum?: number; minLength?: number; maxLength?: number; minItems?: number; maxItems?: number } {
  return limits.bounds[operation]?.[path] ?? {};
}

/** The largest page (`limit`) a list operation answers; 50 when the document names none. */
export function largestPage(operation: keyof operations): number {
  return limits.pages[operation] ?? 50;
}

/**
 * A bound of the design document (the OpenAPI document's `Design` schema): `part` is a block type,
 * `style`, or `design` (for `blocks`, the most a design holds).
 */
export function designBound(part: string, field: string): { minimum?: number; maximum?: number; maxLength?: number; maxItems?: number } {
  return limits.design[part]?.[field] ?? {};
}
