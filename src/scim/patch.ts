// PATCH (RFC 7644 §3.5.2) in the forms Okta and Entra ID send: ops in any letter case ("Add",
// "Replace", "Remove": Entra without its aadOptscim062020 flag), with or without `path`, values
// keyed by attribute paths ("name.givenName") or by the enterprise extension's URN, and booleans as
// strings ("False"). scim-patch (Unlicense, maintained) applies the operations to the resource as
// we present it; what we wrote is the normalising before (the op's case, which it does not
// forgive) and reading the patched resource back (mapping.ts). A patch it refuses is a 400.
import { scimPatch, ScimError as PatchError, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { z } from 'zod';
import { ScimError } from './errors.ts';

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const patchBody = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.looseObject({
        op: z
          .string()
          .transform((op) => op.toLowerCase())
          .pipe(z.enum(['add', 'replace', 'remove'])),
        path: z.string().optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
});

/** The patched copy of `resource`; the original is left as it was. */
export function applyPatch<T extends object>(resource: T, body: unknown): T {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success || (parsed.data.schemas && !parsed.data.schemas.includes(PATCH_SCHEMA))) {
    throw new ScimError(
      400,
      `A PATCH body is {schemas: ["${PATCH_SCHEMA}"], Operations: [{op, path?, value?}]} with op add, replace or remove.`,
      'invalidSyntax',
    );
  }
  const operations = parsed.data.Operations.flatMap(byValue);
  try {
    // Its types want Dates in `meta`; our resources carry the ISO strings SCIM sends (it never reads meta).
    return scimPatch(resource as unknown as ScimResource, operations, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as T;
  } catch (err) {
    if (err instanceof PatchError)
      throw new ScimError(400, `The PATCH could not be applied: ${err.message}`, err.scimCode === 'noTarget' ? 'noTarget' : 'invalidPath');
    throw err;
  }
}

/**
 * Entra removes members as `{op: "Remove", path: "members", value: [{$ref: null, value: id}]}`;
 * scim-patch would compare the whole items (our `$ref` is a URL), so each becomes a removal by
 * `value`, as RFC 7644 §3.5.2.2 means it.
 */
function byValue(o: { op: 'add' | 'replace' | 'remove'; path?: string | undefined; value?: unknown }): ScimPatchOperation[] {
  const items = Array.isArray(o.value) ? o.value : undefined;
  if (o.op === 'remove' && o.path && /^[A-Za-z]+$/.test(o.path) && items?.every((i) => typeof i?.value === 'string')) {
    return items.map((i) => ({ op: 'remove', path: `${o.path}[value eq ${JSON.stringify(i.value)}]` }) as ScimPatchOperation);
  }
  return [{ ...o, ...(o.value === undefined ? {} : { value: o.value }) } as ScimPatchOperation];
}

/** Entra's string booleans ("True", "False") as booleans; anything else as it came. */
export function booleanOf(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return value;
}
