// PATCH (RFC 7644 §3.5.2) in the forms Okta and Entra ID send: ops in any letter case ("Add",
// "Replace", "Remove": Entra without its aadOptscim062020 flag), with or without `path`, values
// keyed by attribute paths ("name.givenName") or by the enterprise extension's URN, and booleans as
// strings ("False"). scim-patch (Unlicense, maintained) applies the operations to the resource as
// we present it. What we wrote is the guard before it and the members after it:
// - every operation is checked first (parsePatch): its op and value's shape, its path against the
//   attributes we keep (patch-paths.ts), no key anywhere named __proto__, constructor or prototype
//   (scim-patch assigns keys as it finds them: they would pollute Object.prototype), at most
//   MAX_PATCH_ITEMS array items in the whole request. A PATCH that fails a check is a 400 and
//   changes nothing; so is one scim-patch then refuses or fails on, whatever it throws;
// - a group's members are a set of ids (applyGroupPatch): adding or removing m of n members is
//   O(n + m), where scim-patch compares every item to every member (seconds for thousands).
import { scimPatch, ScimError as PatchError, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { z } from 'zod';
import { ScimError, invalidValue } from './errors.ts';
import { ENTERPRISE_SCHEMA } from './mapping.ts';
import { ENTERPRISE_SUBS, FORBIDDEN_NAME, NAME_SUBS, invalidPath, targetOf, type ResourceKind, type Target } from './patch-paths.ts';

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/**
 * Array items (members, emails…) in one PATCH, all operations together. Identity providers send
 * member changes in small batches (AWS IAM Identity Center, which Entra and Okta provision, takes
 * 100 a request); a larger change is several PATCHes, or a PUT.
 */
export const MAX_PATCH_ITEMS = 1000;
export const MAX_PATCH_OPERATIONS = 1000;
/**
 * Operations scim-patch applies (all but members'), and items of a user's multi-valued attributes
 * (emails, phoneNumbers) in one PATCH: it compares each item added to every item there and scans
 * an attribute for each filter, so 1,000 of each held the event loop 100–200 ms. A provider sends
 * one operation per attribute it maps (a few dozen at most).
 */
export const MAX_ATTRIBUTE_OPERATIONS = 100;
/** Nesting of a value: a no-path value holding members is 3 deep ({members: [{value}]}). */
const MAX_DEPTH = 6;
const MAX_KEYS = 10_000;

type Op = 'add' | 'replace' | 'remove';
const patchBody = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.object({
        op: z
          .string()
          .transform((op) => op.toLowerCase())
          .pipe(z.enum(['add', 'replace', 'remove'])),
        path: z.string().optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_PATCH_OPERATIONS),
});

/** An operation once checked: one for scim-patch, or one on a group's members (ids; undefined: all of them). */
export type PlannedOp = { kind: 'patch'; op: ScimPatchOperation } | { kind: 'members'; op: Op; ids: string[] | undefined };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const tooMany = (detail: string) => new ScimError(400, detail, 'tooMany');

/** The operations of a PATCH body for a resource of `kind`, checked; a 400 in SCIM's shape for anything we would not apply. */
export function parsePatch(body: unknown, kind: ResourceKind): PlannedOp[] {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success || (parsed.data.schemas && !parsed.data.schemas.includes(PATCH_SCHEMA))) {
    throw new ScimError(
      400,
      `A PATCH body is {schemas: ["${PATCH_SCHEMA}"], Operations: [{op, path?, value?}]} with op add, replace or remove, at most ${MAX_PATCH_OPERATIONS} operations.`,
      'invalidSyntax',
    );
  }
  checkValues(parsed.data.Operations.map((o) => o.value));
  const plan = parsed.data.Operations.flatMap((o) => {
    if (o.path === undefined || o.path.trim() === '') {
      if (o.op === 'remove') throw new ScimError(400, 'A remove operation needs a path.', 'noTarget');
      if (!isPlainObject(o.value)) throw invalidValue(`An ${o.op} operation without a path takes an object of attributes as its value.`);
      // Each attribute of the value is an operation of its own on that attribute (RFC 7644 §3.5.2.1, §3.5.2.3).
      return Object.entries(o.value).flatMap(([key, value]) => planned(kind, o.op, key, value));
    }
    return planned(kind, o.op, o.path, o.value);
  });
  const ops = patchOps(plan);
  const items = ops.reduce((n, o) => n + (Array.isArray(o.value) ? o.value.length : 1), 0);
  if (ops.length > MAX_ATTRIBUTE_OPERATIONS || items > MAX_ATTRIBUTE_OPERATIONS) {
    throw tooMany(`A PATCH changes attributes other than members in at most ${MAX_ATTRIBUTE_OPERATIONS} operations and values.`);
  }
  return plan;
}

/**
 * Walks every value (without recursion: a deeply nested body must not overflow the stack) for
 * keys that reach Object.prototype, nesting deeper than any attribute, and more items than we
 * take; all before scim-patch reads any of it.
 */
function checkValues(values: unknown[]): void {
  const stack: [unknown, number][] = values.map((v) => [v, 0]);
  let items = 0;
  let keys = 0;
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) throw invalidValue(`A PATCH value nests deeper than ${MAX_DEPTH} levels: no attribute does.`);
    if (Array.isArray(value)) {
      items += value.length;
      if (items > MAX_PATCH_ITEMS)
        throw tooMany(`A PATCH holds at most ${MAX_PATCH_ITEMS} array items (members, emails…), all operations together: send the rest in another PATCH.`);
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (FORBIDDEN_NAME.test(key)) throw invalidValue(`A PATCH value has the key ${JSON.stringify(key.slice(0, 100))}, which names no attribute.`);
      if (++keys > MAX_KEYS) throw tooMany(`A PATCH holds at most ${MAX_KEYS} attributes in its values.`);
      stack.push([child, depth + 1]);
    }
  }
}

function planned(kind: ResourceKind, op: Op, path: string, value: unknown): PlannedOp[] {
  const target = targetOf(kind, path);
  if (target.kind === 'drop') return [];
  if (target.kind === 'members') return [membersOp(op, path, target.filter, value)];
  if (target.kind === 'complex' && target.path === ENTERPRISE_SCHEMA) {
    // The extension whole: scim-patch splits a path at its last colon, so its one attribute we keep is named in full.
    const department = op === 'remove' ? undefined : (shaped(target, path, value) as { department?: unknown }).department;
    return op === 'remove' || department !== undefined ? planned(kind, op, `${ENTERPRISE_SCHEMA}:department`, department) : [];
  }
  if (op === 'remove') return [{ kind: 'patch', op: { op, path: target.path, ...(value === undefined ? {} : { value }) } as ScimPatchOperation }];
  return [{ kind: 'patch', op: { op, path: target.path, value: shaped(target, path, value) } as ScimPatchOperation }];
}

/** An add's or replace's value as the target takes it; a 400 invalidValue otherwise (scim-patch would throw a TypeError, or worse). */
function shaped(target: Exclude<Target, { kind: 'drop' | 'members' }>, path: string, value: unknown): unknown {
  const wrong = (takes: string) => invalidValue(`PATCH ${JSON.stringify(path.slice(0, 200))}: the value must be ${takes}.`);
  const scalar = target.kind === 'simple' || ((target.kind === 'complex' || target.kind === 'multi') && target.sub);
  if (scalar) {
    if (value === undefined || !isScalar(value)) throw wrong('a single value (a string, a number or a boolean)');
    return value;
  }
  if (target.kind === 'complex') {
    if (!isPlainObject(value)) throw wrong('an object of sub-attributes');
    // Only the sub-attributes we keep, and only single values: a key is a path to scim-patch.
    const kept = target.path === 'name' ? NAME_SUBS : ENTERPRISE_SUBS;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const name = kept.get(key.toLowerCase());
      if (!name) continue;
      if (!isScalar(v)) throw wrong(`an object of sub-attributes, each a single value (${key} is not)`);
      out[name] = v;
    }
    return out;
  }
  // Multi-valued (emails, phoneNumbers): whole, items are objects; filtered, an object of single values.
  const itemOk = (item: unknown) => isPlainObject(item) && Object.values(item).every(isScalar);
  if (target.filter ? !itemOk(value) : !(Array.isArray(value) ? value.every(itemOk) : itemOk(value))) {
    throw wrong(target.filter ? 'an object of single values' : 'a list of objects such as {value, type, primary}');
  }
  return value;
}

const MEMBER_FILTER = /^\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

function membersOp(op: Op, path: string, filter: string | undefined, value: unknown): PlannedOp {
  if (filter !== undefined) {
    const quoted = MEMBER_FILTER.exec(filter)?.[1];
    if (op !== 'remove') throw invalidPath(path, 'members are added or replaced with path "members" and a list of {value: userId}.');
    if (quoted === undefined) throw new ScimError(400, 'A member is selected by its id: members[value eq "userId"].', 'invalidFilter');
    return { kind: 'members', op, ids: [memberId(quoted.replace(/\\(.)/g, '$1'))] };
  }
  if (op === 'remove' && value === undefined) return { kind: 'members', op, ids: undefined };
  const items = Array.isArray(value) ? value : [value];
  return {
    kind: 'members',
    op,
    ids: items.map((item) => {
      if (!isPlainObject(item) || typeof item.value !== 'string') throw invalidValue('members: each member is {value: userId}.');
      return memberId(item.value);
    }),
  };
}

/** Our ids are UUIDs, compared without case (as the database does). */
const memberId = (id: string) => id.slice(0, 100).toLowerCase();

/** Any failure of scim-patch is the PATCH's doing: its input is the only thing that varies. */
function applied<T extends object>(resource: T, ops: ScimPatchOperation[]): T {
  try {
    // Its types want Dates in `meta`; our resources carry the ISO strings SCIM sends (it never reads meta).
    return scimPatch(resource as unknown as ScimResource, ops, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as T;
  } catch (err) {
    if (err instanceof PatchError)
      throw new ScimError(400, `The PATCH could not be applied: ${err.message}`, err.scimCode === 'noTarget' ? 'noTarget' : 'invalidPath');
    throw new ScimError(400, "The PATCH could not be applied to this resource: check each operation's path and value.", 'invalidValue');
  }
}

const patchOps = (plan: PlannedOp[]) => plan.flatMap((p) => (p.kind === 'patch' ? [p.op] : []));

/** The patched copy of a user; the original is left as it was. */
export function applyUserPatch<T extends object>(resource: T, plan: PlannedOp[]): T {
  return applied(resource, patchOps(plan));
}

/** The patched copy of a group (without its members) and its member ids after the plan, in their order. */
export function applyGroupPatch<T extends object>(resource: T, memberIds: readonly string[], plan: PlannedOp[]): { resource: T; memberIds: string[] } {
  let members = new Set(memberIds.map(memberId));
  for (const p of plan) {
    if (p.kind !== 'members') continue;
    if (p.op === 'replace') members = new Set(p.ids);
    else if (p.op === 'add') for (const id of p.ids ?? []) members.add(id);
    else if (p.ids === undefined) members.clear();
    else for (const id of p.ids) members.delete(id);
  }
  return { resource: applied(resource, patchOps(plan)), memberIds: [...members] };
}
