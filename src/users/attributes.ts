// A user's custom field values (docs/api.md, "Profiles"): only the org's fields, each of its type.
// The request schema has checked the keys' shape and the values' length; the org's field list is
// known only here, where the service has read the org.
import { badRequest } from '../kernel/errors.ts';
import { fitsFieldType, mergeLinks } from '../lib/profile.ts';
import type { CustomField } from '../store/schema.ts';

/** Refuses, naming `body.attributes.<key>`, a key the org has not defined or a value not of its type. */
export function checkAttributes(fields: readonly CustomField[], patch: Record<string, string | null>): void {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const [key, value] of Object.entries(patch)) {
    const field = byKey.get(key);
    const name = `body.attributes.${key}`;
    if (!field) {
      const known = fields.map((f) => f.key).join(', ') || 'none yet (PUT /v1/orgs/{orgId}/fields)';
      throw badRequest(`${name}: the organisation has no custom field "${key}". Its fields: ${known}.`, { field: name });
    }
    if (value === null || value === '' || fitsFieldType(field.type, value)) continue;
    if (field.type === 'url') {
      throw badRequest(`${name}: ${field.label} must be an http:// or https:// URL.`, { field: name });
    }
    if (field.type === 'phone') {
      throw badRequest(`${name}: ${field.label} must be a phone number (digits, spaces and + ( ) . / -, at most 50).`, { field: name });
    }
  }
}

/** The values after a patch: merged, a key set to null (or "") removed. */
export const mergeAttributes = mergeLinks;
