-- The monthly quota of API-key requests (src/quota/): each instance counts in memory and adds its
-- counts here in batches (one upsert per org and flush, never one write per request), so the
-- total is shared by every instance. `month` is the calendar month in UTC, 'YYYY-MM'.
CREATE TABLE org_usage (
  org_id    uuid NOT NULL REFERENCES orgs(id),
  month     text NOT NULL,
  requests  bigint NOT NULL DEFAULT 0 CHECK (requests >= 0),
  PRIMARY KEY (org_id, month)
);
-- A staff setting (PATCH /v1/admin/orgs/{orgId}): the org's own quota; NULL: QUOTA_REQUESTS_PER_MONTH; 0: none.
ALTER TABLE orgs ADD COLUMN quota_per_month integer CHECK (quota_per_month >= 0);
