-- Outbound webhooks (issue 30; docs/webhooks.md). An org's endpoints; the events its changes
-- cause (an outbox: written in the transaction of the change); one delivery per event and
-- endpoint subscribed to it, with its attempts. Delivery runs from the job queue (kind
-- `webhook.drain`, one per endpoint with work): src/outbound-webhooks/delivery.ts.
--
-- The signing secrets are sealed with SECRETS_KEY (src/secrets/), both in one value (JSON
-- `{current, previous}`), so that a rotation re-seals one column; `previous_until` says until
-- when the previous one still signs.
CREATE TABLE outbound_endpoints (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES orgs (id),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  url text NOT NULL,
  description text,
  events text[] NOT NULL,
  sealed_secrets text NOT NULL,
  previous_until timestamptz,
  disabled boolean NOT NULL DEFAULT false,
  disabled_reason text,
  -- Since when no attempt succeeded (null after a success): 3 days of it disables the endpoint.
  failing_since timestamptz,
  last_success_at timestamptz,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX outbound_endpoints_org ON outbound_endpoints (org_id, seq) WHERE deleted_at IS NULL;

-- `body` is the exact JSON sent (and signed): text, not jsonb, which would reorder its keys.
CREATE TABLE outbound_events (
  id text PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES orgs (id),
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbound_events_created ON outbound_events (created_at);

-- `next_attempt_at` is on the service's clock; `lease_until` (the database's time) marks a
-- delivery in flight: one whose instance died is sent again once it passed.
CREATE TABLE outbound_deliveries (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  org_id uuid NOT NULL REFERENCES orgs (id),
  endpoint_id uuid NOT NULL REFERENCES outbound_endpoints (id),
  event_id text NOT NULL REFERENCES outbound_events (id),
  type text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  attempts jsonb NOT NULL DEFAULT '[]',
  next_attempt_at timestamptz,
  lease_until timestamptz,
  lease_token uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbound_deliveries_endpoint ON outbound_deliveries (endpoint_id, seq DESC);
-- The purge (module.ts): finished deliveries by age; an event's deliveries, before the event goes.
CREATE INDEX outbound_deliveries_finished ON outbound_deliveries (created_at) WHERE state <> 'pending';
CREATE INDEX outbound_deliveries_event ON outbound_deliveries (event_id);
-- The drain's claim walks this index in its own order (the oldest due first) and stops at the first
-- free row; the in-flight count reads only the leased rows.
CREATE INDEX outbound_deliveries_due ON outbound_deliveries (endpoint_id, next_attempt_at NULLS FIRST, seq) WHERE state = 'pending';
CREATE INDEX outbound_deliveries_leased ON outbound_deliveries (endpoint_id, lease_until) WHERE state = 'pending' AND lease_until IS NOT NULL;
