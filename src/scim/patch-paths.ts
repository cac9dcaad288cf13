// What a PATCH operation may touch (docs/scim.md, "PATCH"): the attribute a `path` names, checked
// against the attributes we keep, before scim-patch sees anything. scim-patch walks a path by
// plain property access (`resource[segment]`), so a segment `__proto__`, `constructor` or
// `prototype` reaches Object.prototype and pollutes every object of the process; and a path it
// cannot follow (`name.givenName.foo`) throws a TypeError. Hence an allowlist: the attributes we
// keep are applied, well-formed attributes we do not keep are accepted and dropped (Entra's default
// mapping sends preferredLanguage, addresses, the enterprise manager…), anything else is a 400.
// Hand-written: RFC 7644's path grammar (§3.5.2, ATTRNAME per RFC 7643 §2.1) in one expression.
import { ScimError } from './errors.ts';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './mapping.ts';

export type ResourceKind = 'User' | 'Group';

/** Where an operation lands, once checked. */
export type Target =
  /** An attribute we do not keep: the operation is accepted and changes nothing. */
  | { kind: 'drop' }
  /** A single value (userName, title, active, the enterprise department…). */
  | { kind: 'simple'; path: string }
  /** A complex attribute (name, the enterprise extension), whole or one sub-attribute. */
  | { kind: 'complex'; path: string; sub: boolean }
  /** A multi-valued attribute (emails, phoneNumbers), whole, by filter, or a sub-attribute of the filtered items. */
  | { kind: 'multi'; path: string; filter: boolean; sub: boolean }
  /** A group's members: handled as a set of ids (patch.ts), never by scim-patch. */
  | { kind: 'members'; filter: string | undefined };

/** Names that reach Object.prototype through property access: never a path segment or a key. */
export const FORBIDDEN_NAME = /__proto__|constructor|prototype/i;

const ATTR = '[A-Za-z][\\w$-]*';
/** [URN ":"] ATTRNAME ["[" filter "]"] ["." subAttr] */
const PATH = new RegExp(`^(?:(urn:[^\\s"\\[\\]]+):)?(${ATTR})(?:\\[([^\\]]*)\\])?(?:\\.(${ATTR}))?$`);

const canonical = (names: string[]) => new Map(names.map((n) => [n.toLowerCase(), n]));
const USER_SIMPLE = canonical(['userName', 'displayName', 'title', 'active', 'externalId']);
const USER_MULTI = canonical(['emails', 'phoneNumbers']);
/** The sub-attributes of `name`, and of the enterprise extension, we keep (patch.ts takes only these from a value). */
export const NAME_SUBS = canonical(['formatted', 'givenName', 'familyName']);
export const ENTERPRISE_SUBS = canonical(['department']);
const MULTI_SUBS = canonical(['value', 'type', 'primary']);
const GROUP_SIMPLE = canonical(['displayName', 'externalId']);

export const invalidPath = (path: string, why: string) => new ScimError(400, `PATCH path ${JSON.stringify(path.slice(0, 200))}: ${why}`, 'invalidPath');

/** The target of `path` on a resource of `kind`; throws a 400 invalidPath for a path we cannot follow. */
export function targetOf(kind: ResourceKind, path: string): Target {
  if (path.length > 500) throw invalidPath(path, 'is longer than 500 characters.');
  if (FORBIDDEN_NAME.test(path)) throw invalidPath(path, 'names no attribute.');
  if (kind === 'User' && path.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) return { kind: 'complex', path: ENTERPRISE_SCHEMA, sub: false };
  const m = PATH.exec(path);
  if (!m) throw invalidPath(path, 'is not an attribute path (attribute, attribute.subAttribute or attribute[filter].subAttribute).');
  const [, urn, attr, filter, sub] = m as unknown as [string, string | undefined, string, string | undefined, string | undefined];
  const schema = urn?.toLowerCase();
  if (kind === 'User' && schema === ENTERPRISE_SCHEMA.toLowerCase()) {
    if (attr.toLowerCase() !== 'department') return { kind: 'drop' };
    if (filter !== undefined || sub !== undefined) throw invalidPath(path, 'department is a single value.');
    return { kind: 'simple', path: `${ENTERPRISE_SCHEMA}:department` };
  }
  // Another schema's attribute (an extension we do not keep) changes nothing.
  if (schema !== undefined && schema !== (kind === 'User' ? USER_SCHEMA : GROUP_SCHEMA).toLowerCase()) return { kind: 'drop' };
  return kind === 'User' ? userTarget(path, attr, filter, sub) : groupTarget(path, attr, filter, sub);
}

function simpleTarget(path: string, simple: string, filter: string | undefined, sub: string | undefined): Target {
  if (filter !== undefined || sub !== undefined) throw invalidPath(path, `${simple} is a single value.`);
  return { kind: 'simple', path: simple };
}

function userTarget(path: string, attr: string, filter: string | undefined, sub: string | undefined): Target {
  const name = attr.toLowerCase();
  const simple = USER_SIMPLE.get(name);
  if (simple) return simpleTarget(path, simple, filter, sub);
  if (name === 'name') {
    if (filter !== undefined) throw invalidPath(path, 'name is not multi-valued.');
    return { kind: 'complex', path: sub === undefined ? 'name' : `name.${NAME_SUBS.get(sub.toLowerCase()) ?? sub}`, sub: sub !== undefined };
  }
  const multi = USER_MULTI.get(name);
  if (multi) {
    if (sub !== undefined && filter === undefined) throw invalidPath(path, `select the ${multi} item with a filter, as ${multi}[type eq "work"].value.`);
    const subPath = sub === undefined ? '' : `.${MULTI_SUBS.get(sub.toLowerCase()) ?? sub}`;
    return { kind: 'multi', path: `${multi}${filter === undefined ? '' : `[${filter}]`}${subPath}`, filter: filter !== undefined, sub: sub !== undefined };
  }
  return { kind: 'drop' };
}

function groupTarget(path: string, attr: string, filter: string | undefined, sub: string | undefined): Target {
  const name = attr.toLowerCase();
  const simple = GROUP_SIMPLE.get(name);
  if (simple) return simpleTarget(path, simple, filter, sub);
  if (name === 'members') {
    if (sub !== undefined) throw invalidPath(path, 'a member is added or removed whole, by its value.');
    return { kind: 'members', filter };
  }
  return { kind: 'drop' };
}
