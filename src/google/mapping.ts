// A Directory API user → our user fields (docs/google-workspace.md, "What the sync does"): primaryEmail → email,
// name.fullName → name, the primary organizations[] entry's title and department, phones[] of type
// `work` → phone and `mobile` → mobile; suspended (or archived) → suspended; thumbnailPhotoEtag → the
// photo's mark (src/directory/photos.ts).
import type { DirectoryUser } from '../directory/module.ts';
import type { GoogleUser } from './client.ts';

export function toDirectoryUser(u: GoogleUser): DirectoryUser {
  const orgs = u.organizations ?? [];
  const org = orgs.find((o) => o.primary) ?? orgs[0];
  const phone = (type: string) =>
    (u.phones ?? []).find((p) => p.type === type && p.primary)?.value ?? (u.phones ?? []).find((p) => p.type === type)?.value ?? '';
  const name = u.name?.fullName ?? [u.name?.givenName, u.name?.familyName].filter(Boolean).join(' ');
  return {
    externalId: u.id,
    email: u.primaryEmail,
    name: clip(name, 200),
    title: clip(org?.title ?? '', 200),
    department: clip(org?.department ?? '', 200),
    phone: clip(phone('work'), 50),
    mobile: clip(phone('mobile'), 50),
    active: !u.suspended && !u.archived,
    // The listing says whether the photo changed: the sync downloads only changed ones.
    photoEtag: u.thumbnailPhotoUrl ? (u.thumbnailPhotoEtag ?? u.thumbnailPhotoUrl) : null,
  };
}

// Our user fields have the API's limits (users/schemas.ts); the directory's may be longer, and may
// hold what PostgreSQL's text cannot (NUL).
const clip = (s: string, max: number) => s.replaceAll('\u0000', '').trim().slice(0, max);
