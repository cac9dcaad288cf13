-- One Microsoft Entra ID connection per org (DECISIONS "Microsoft 365"): an app registration's
-- client credentials, the secret sealed with SECRETS_KEY (src/secrets/), and the sync's state.
CREATE TABLE microsoft_integrations (
  org_id         uuid PRIMARY KEY REFERENCES orgs(id),
  tenant_id      text NOT NULL,
  client_id      text NOT NULL,
  sealed_secret  text NOT NULL,
  last_sync_at   timestamptz,
  last_error     text,
  last_error_at  timestamptz,
  -- When the scheduler queues the next sync (MICROSOFT_SYNC_INTERVAL_S after the last it queued).
  next_sync_at   timestamptz NOT NULL DEFAULT now(),
  version        integer NOT NULL DEFAULT 1,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX microsoft_integrations_due ON microsoft_integrations (next_sync_at);
