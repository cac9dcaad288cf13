-- Impressions of campaign banners (docs/api.md, "Campaign stats"): signatures served with a banner,
-- counted in memory per campaign, variant and UTC day and added here once a second.
CREATE TABLE campaign_impressions (
  org_id      uuid NOT NULL REFERENCES orgs(id),
  campaign_id uuid NOT NULL,
  variant     integer NOT NULL,
  day         date NOT NULL,
  count       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, campaign_id, variant, day)
);
