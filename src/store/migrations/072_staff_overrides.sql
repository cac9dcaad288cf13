-- Staff overrides (PATCH /v1/admin/orgs/{orgId}): set by staff, never by payment events, so
-- replaying events cannot erase them. The org's effective seats and plan are the override where
-- set, else `seats` / `plan` as the events left them (src/store/repositories/orgs.ts); a future
-- trial end keeps the org writable until then (src/billing/gate.ts).
ALTER TABLE orgs ADD COLUMN seats_override integer CHECK (seats_override >= 0);
ALTER TABLE orgs ADD COLUMN plan_override text;
ALTER TABLE orgs ADD COLUMN trial_ends_at timestamptz;
