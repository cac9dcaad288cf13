-- An org may turn click tracking off (docs/api.md, "Clicks"): its links then render as they are.
ALTER TABLE orgs ADD COLUMN click_tracking boolean NOT NULL DEFAULT true;
