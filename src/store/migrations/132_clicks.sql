-- Clicks on tracked links (docs/api.md, "Clicks"): every one kept, scanners' marked rather than
-- dropped. `address` is the client's for CLICK_ADDRESS_RETENTION_DAYS, then only its /24 or /48.
CREATE TABLE clicks (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id        uuid NOT NULL REFERENCES orgs(id),
  campaign_id   uuid,
  variant       integer,
  user_id       uuid NOT NULL,
  destination   text NOT NULL,
  at            timestamptz NOT NULL,
  address       text NOT NULL,
  user_agent    text NOT NULL DEFAULT '',
  suspected_bot boolean NOT NULL,
  bot_reason    text
);
CREATE INDEX clicks_campaign_at ON clicks (org_id, campaign_id, at);
CREATE INDEX clicks_at ON clicks (at);
