-- Each event of an org's history keeps the org's billing state right after it (in created order),
-- so an event that arrives late is placed from the state before it and re-applies only the events
-- after it, never the org's whole history (src/billing/late.ts). Null on events stored before:
-- the first late event of such an org folds its history once and fills them in.
ALTER TABLE webhook_events ADD COLUMN state_after jsonb;
-- An org's history (applied and ignored events with an org are exactly its handled events) in
-- created order (received when an event has none), from a given instant. Partial, so that the
-- status condition is no filter and the planner, without statistics (the embedded store has no
-- autovacuum), still reads the newest event before an instant straight from the index.
CREATE INDEX webhook_events_org_at ON webhook_events (org_id, (coalesce(created_at, received_at)))
  WHERE org_id IS NOT NULL AND status IN ('applied', 'ignored');
