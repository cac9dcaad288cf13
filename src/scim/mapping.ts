// Our users and groups as SCIM resources (RFC 7643), and what a SCIM client sends as our fields
// (docs/scim.md, "The mapping"): userName is the email; name.formatted or displayName the name
// (givenName + familyName when neither comes); title; emails[primary or work]; phoneNumbers work →
// phone and mobile → mobile; the enterprise extension's department; externalId kept; active false
// suspends. Written by hand: a dozen attributes, and no library maps to our columns.
import { z } from 'zod';
import type { ScimGroupRow, UserRow } from '../store/schema.ts';
import type { DirectoryProfile } from '../store/repositories/directory.ts';
import { invalidValue } from './errors.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** Entra's string booleans ("True", "False") as booleans; anything else as it came. */
export function booleanOf(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return value;
}

export interface ScimUserResource {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { formatted: string; givenName: string; familyName: string };
  displayName: string;
  title: string;
  active: boolean;
  emails: { value: string; type: string; primary: boolean }[];
  phoneNumbers: { value: string; type: string }[];
  [ENTERPRISE_SCHEMA]: { department: string };
  groups: { value: string; display: string; $ref: string }[];
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

/** "Ada King Lovelace" → given "Ada King", family "Lovelace" (a client reading them back gets what the name holds). */
function split(name: string): { givenName: string; familyName: string } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return { givenName: words[0] ?? '', familyName: '' };
  return { givenName: words.slice(0, -1).join(' '), familyName: words.at(-1)! };
}

export function toScimUser(u: UserRow, groups: { id: string; displayName: string }[], baseUrl: string): ScimUserResource {
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    id: u.id,
    ...(u.directory_source === 'scim' && u.directory_id ? { externalId: u.directory_id } : {}),
    userName: u.email,
    name: { formatted: u.name, ...split(u.name) },
    displayName: u.name,
    title: u.title,
    active: u.status !== 'suspended',
    emails: [{ value: u.email, type: 'work', primary: true }],
    phoneNumbers: [...(u.phone ? [{ value: u.phone, type: 'work' }] : []), ...(u.mobile ? [{ value: u.mobile, type: 'mobile' }] : [])],
    [ENTERPRISE_SCHEMA]: { department: u.department },
    groups: groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${baseUrl}/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: u.created_at.toISOString(),
      lastModified: u.updated_at.toISOString(),
      location: `${baseUrl}/Users/${u.id}`,
      version: `W/"${u.version}"`,
    },
  };
}

export function toScimGroup(g: ScimGroupRow, members: { id: string; name: string; email: string }[] | undefined, baseUrl: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    ...(g.external_id ? { externalId: g.external_id } : {}),
    displayName: g.display_name,
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.name || m.email, $ref: `${baseUrl}/Users/${m.id}` })) } : {}),
    meta: {
      resourceType: 'Group' as const,
      created: g.created_at.toISOString(),
      lastModified: g.updated_at.toISOString(),
      location: `${baseUrl}/Groups/${g.id}`,
      version: `W/"${g.version}"`,
    },
  };
}

/** What we keep of a SCIM user. */
export interface ScimUserInput extends DirectoryProfile {
  active: boolean;
  externalId: string | null;
}

const text = (max: number) => z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string().trim().max(max));
const multi = z.array(z.looseObject({ value: z.unknown().optional(), type: z.string().optional(), primary: z.unknown().optional() })).optional();
const userBody = z.looseObject({
  userName: z.string().trim().min(1).max(254),
  externalId: z.string().max(500).nullish(),
  displayName: text(200).optional(),
  name: z.looseObject({ formatted: text(200).optional(), givenName: text(200).optional(), familyName: text(200).optional() }).nullish(),
  title: text(200).optional(),
  active: z.preprocess(booleanOf, z.boolean()).optional(),
  emails: multi,
  phoneNumbers: multi,
  [ENTERPRISE_SCHEMA]: z.looseObject({ department: text(200).optional() }).nullish(),
});

const email = z.email().max(254);
type Multi = NonNullable<z.infer<typeof multi>>;
const ofType = (items: Multi | undefined, type: string) => items?.find((i) => (i.type ?? '').toLowerCase() === type && typeof i.value === 'string');
const primaryOrWork = (items: Multi | undefined) => items?.find((i) => booleanOf(i.primary) === true && typeof i.value === 'string') ?? ofType(items, 'work');

/**
 * A SCIM user as our fields. `before` is the resource as we presented it (PUT and PATCH): of the
 * three places a name comes from, the one the client changed wins; on create the first given.
 */
export function fromScimUser(body: unknown, before?: ScimUserResource): ScimUserInput {
  const parsed = userBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidValue(`${issue?.path.join('.') || 'The user'}: ${issue?.message ?? 'is not valid'}.`);
  }
  const u = parsed.data;
  // userName is the email; a userName that is no address (a UPN-like id) gives way to the work email.
  const address = email.safeParse(u.userName).success ? u.userName : String(primaryOrWork(u.emails)?.value ?? '');
  if (!email.safeParse(address).success) throw invalidValue('userName must be an email address (or emails must hold a primary or work address).');
  const joined = [u.name?.givenName, u.name?.familyName].filter(Boolean).join(' ');
  const candidates: [string | undefined, string | undefined][] = [
    [u.displayName, before?.displayName],
    [u.name?.formatted, before?.name.formatted],
    [joined || undefined, before ? [before.name.givenName, before.name.familyName].filter(Boolean).join(' ') : undefined],
  ];
  const changed = before ? candidates.find(([now, was]) => now !== undefined && now !== was)?.[0] : undefined;
  const name = changed ?? (before ? before.displayName : candidates.find(([now]) => now)?.[0]) ?? '';
  return {
    email: address,
    name: name.slice(0, 200),
    title: u.title ?? '',
    department: u[ENTERPRISE_SCHEMA]?.department ?? '',
    phone: String(ofType(u.phoneNumbers, 'work')?.value ?? '').slice(0, 50),
    mobile: String(ofType(u.phoneNumbers, 'mobile')?.value ?? '').slice(0, 50),
    active: u.active ?? true,
    externalId: u.externalId ?? null,
  };
}

const memberList = z.array(z.looseObject({ value: z.string() })).max(10_000);
const groupBody = z.looseObject({
  displayName: z.string().trim().min(1).max(200),
  externalId: z.string().max(500).nullish(),
  members: memberList.nullish(),
});

export function fromScimGroup(body: unknown): { displayName: string; externalId: string | null; memberIds: string[] } {
  const parsed = groupBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidValue(`${issue?.path.join('.') || 'The group'}: ${issue?.message ?? 'is not valid'}.`);
  }
  return { displayName: parsed.data.displayName, externalId: parsed.data.externalId ?? null, memberIds: (parsed.data.members ?? []).map((m) => m.value) };
}
