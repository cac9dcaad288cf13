import { z } from 'zod';
import { iso, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import type { UserRow } from '../store/schema.ts';

export const roleSchema = z.enum(['member', 'admin', 'owner']);

const profile = {
  name: text().trim().max(200),
  title: text().trim().max(200),
  department: text().trim().max(200),
  phone: text().trim().max(50),
  mobile: text().trim().max(50),
};

export const userSchema = z
  .object({
    userId: uuid,
    orgId: uuid,
    email: z.email(),
    name: z.string(),
    role: roleSchema,
    title: z.string(),
    department: z.string(),
    phone: z.string(),
    mobile: z.string(),
    mfaEnabled: z.boolean(),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'User' });

const temporaryPassword = text()
  .min(12, 'must have at least 12 characters')
  .max(200)
  .describe('a password the user must replace at first sign-in (admin-only)');

export const userCreateSchema = z.strictObject({
  email: z.email().max(254),
  temporaryPassword: temporaryPassword.optional(),
  role: roleSchema.default('member'),
  name: profile.name.default(''),
  title: profile.title.default(''),
  department: profile.department.default(''),
  phone: profile.phone.default(''),
  mobile: profile.mobile.default(''),
});

export const userPatchSchema = z.strictObject({
  version: versionField,
  temporaryPassword: temporaryPassword.optional(),
  email: z.email().max(254).optional(),
  role: roleSchema.optional(),
  name: profile.name.optional(),
  title: profile.title.optional(),
  department: profile.department.optional(),
  phone: profile.phone.optional(),
  mobile: profile.mobile.optional(),
});

export const userParams = z.object({ orgId: uuid, userId: uuid });

export function presentUser(u: UserRow): z.infer<typeof userSchema> {
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
    mfaEnabled: u.mfa_enabled,
    version: u.version,
    createdAt: iso(u.created_at),
    updatedAt: iso(u.updated_at),
  };
}
