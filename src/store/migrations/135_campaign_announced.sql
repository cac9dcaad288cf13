-- The outbound webhooks' campaign.started and campaign.ended (docs/webhooks.md): the status a
-- campaign's events last announced. A campaign's status is derived from its times and the clock
-- (migration 131), so nothing writes when it starts or ends; the announcer (src/campaigns/announce.ts)
-- compares this column with the derived status, and moves it in the statement that claims the
-- change, so each transition is announced once across instances. Campaigns that started or ended
-- before this migration are taken as announced (no burst of old events on deploy).
ALTER TABLE campaigns ADD COLUMN announced_status text NOT NULL DEFAULT 'scheduled'
  CHECK (announced_status IN ('scheduled', 'active', 'ended'));
UPDATE campaigns SET announced_status = CASE
  WHEN starts_at > now() THEN 'scheduled'
  WHEN ends_at IS NOT NULL AND ends_at <= now() THEN 'ended'
  ELSE 'active' END;
