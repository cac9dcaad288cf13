-- Payment events kept as the bytes that were signed, an exact page order, events that wait for
-- their org, and what order-independent billing needs (DECISIONS "Operations").

-- jsonb refuses NUL characters and lone surrogates, and deep nesting can exceed its parser's
-- stack: a signed event holding one could not be kept, so the provider retried it forever. The
-- raw body as bytes always fits, and replays parse it again.
ALTER TABLE webhook_events ADD COLUMN raw_body bytea;
UPDATE webhook_events SET raw_body = convert_to(payload::text, 'UTF8');
ALTER TABLE webhook_events ALTER COLUMN raw_body SET NOT NULL;
ALTER TABLE webhook_events DROP COLUMN payload;

-- The staff list pages by this (received_at has microseconds a JavaScript Date cannot carry).
ALTER TABLE webhook_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX webhook_events_seq ON webhook_events (seq);

-- An event whose customer no org is linked to yet waits ('pending') until one is.
ALTER TABLE webhook_events ADD COLUMN customer_id text;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_status_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_status_check
  CHECK (status IN ('applied', 'ignored', 'failed', 'pending'));
CREATE INDEX webhook_events_pending ON webhook_events (customer_id) WHERE status = 'pending';
CREATE INDEX webhook_events_org ON webhook_events (org_id) WHERE org_id IS NOT NULL;

-- An org's billing state is the fold of its events in `created` order: an event older than the
-- newest applied one re-applies them all from the state before the first (billing_base).
-- billing_event_rank is the newest one's place in the spec table, which breaks ties of `created`.
ALTER TABLE orgs
  ADD COLUMN billing_base jsonb,
  ADD COLUMN billing_event_rank smallint;
