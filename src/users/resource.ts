// A user as the API answers it (camelCase, ISO-8601 timestamps). The one place a users row becomes
// the resource: the service answers these, and the routes only add the invitation link.
import type { OrgRole, UserRow, UserStatus } from '../store/schema.ts';

export interface User {
  userId: string;
  orgId: string;
  email: string;
  name: string;
  role: OrgRole;
  title: string;
  department: string;
  phone: string;
  mobile: string;
  pronouns: string;
  website: string;
  address: string;
  photoImageId: string | null;
  social: Record<string, string>;
  attributes: Record<string, string>;
  mfaEnabled: boolean;
  status: UserStatus;
  emailVerified: boolean;
  /** Admins only, while the user is invited and no mail carries the link. */
  invitationUrl?: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export function toUser(u: UserRow, invitationUrl?: string | undefined): User {
  return {
    userId: u.id,
    orgId: u.org_id,
    email: u.email,
    name: u.name,
    role: u.role,
    title: u.title,
    department: u.department,
    phone: u.phone,
    mobile: u.mobile,
    pronouns: u.pronouns,
    website: u.website,
    address: u.address,
    photoImageId: u.photo_image_id,
    social: u.social,
    attributes: u.attributes,
    mfaEnabled: u.mfa_enabled,
    status: u.status,
    emailVerified: u.email_verified,
    ...(invitationUrl ? { invitationUrl } : {}),
    version: u.version,
    createdAt: u.created_at.toISOString(),
    updatedAt: u.updated_at.toISOString(),
  };
}
