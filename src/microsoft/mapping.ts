// A Graph user as the directory sync sees one (docs/entra-sync.md): `mail` (else
// `userPrincipalName`) → email, `displayName` → name, `jobTitle` → title, `department`,
// `businessPhones[0]` → phone, `mobilePhone` → mobile; `accountEnabled: false` → soft-deleted.
import type { DirectoryUser } from '../directory/module.ts';
import type { GraphUser } from './graph.ts';

const str = (v: string | null | undefined) => (typeof v === 'string' ? v.trim() : '');

export function toDirectoryUser(u: GraphUser): DirectoryUser {
  return {
    externalId: u.id,
    email: str(u.mail) || str(u.userPrincipalName),
    name: str(u.displayName),
    title: str(u.jobTitle),
    department: str(u.department),
    phone: str(u.businessPhones?.[0]),
    mobile: str(u.mobilePhone),
    active: u.accountEnabled !== false,
  };
}
