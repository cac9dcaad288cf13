-- The staff API (issue 18): staff actions outside any org in the audit trail, orgs and staff
-- listed in pages, staff invited without a password.

-- A staff action that concerns no org (inviting or disabling staff, replaying an event of no
-- org) is audited too: its entry has no org. Org audit lists filter by org, so they never see it.
ALTER TABLE audit_entries ALTER COLUMN org_id DROP NOT NULL;
CREATE INDEX audit_entries_staff ON audit_entries (id DESC) WHERE actor_type = 'staff';

-- Keyset pages of the staff lists (src/store/pagination.ts pages by a unique integer).
ALTER TABLE orgs ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX orgs_seq ON orgs (seq);
CREATE INDEX orgs_name_seq ON orgs (lower(name), seq);
ALTER TABLE staff ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX staff_seq ON staff (seq);

-- An invited staff member has no password until they accept the invitation.
ALTER TABLE staff ALTER COLUMN password_hash DROP NOT NULL;
