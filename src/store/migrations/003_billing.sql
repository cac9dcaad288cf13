-- Billing state from the payment provider's events, and the events themselves (dedup and replay).

ALTER TABLE orgs
  ADD COLUMN provider_subscription_id text,
  -- The `created` time of the newest event applied: older events never overwrite newer state.
  ADD COLUMN billing_event_at timestamptz;

CREATE TABLE webhook_events (
  id              text PRIMARY KEY,
  type            text NOT NULL,
  -- The event's own `created` time, as the provider stamped it.
  created_at      timestamptz,
  received_at     timestamptz NOT NULL DEFAULT now(),
  org_id          uuid,
  status          text NOT NULL CHECK (status IN ('applied', 'ignored', 'failed')),
  outcome         text,
  error           text,
  payload         jsonb NOT NULL,
  correlation_id  text,
  attempts        integer NOT NULL DEFAULT 1
);
CREATE INDEX webhook_events_received ON webhook_events (received_at);
CREATE INDEX webhook_events_failed ON webhook_events (received_at) WHERE status = 'failed';
