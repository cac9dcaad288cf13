-- One Google Workspace connection per org (DECISIONS "Google Workspace"). The service account's
-- private key is sealed with SECRETS_KEY (src/secrets/) and never leaves the service.
CREATE TABLE google_integrations (
  org_id              uuid PRIMARY KEY REFERENCES orgs(id),
  client_email        text NOT NULL,
  client_id           text NOT NULL,
  private_key_id      text NOT NULL,
  project_id          text NOT NULL,
  sealed_private_key  text NOT NULL,
  admin_email         text NOT NULL,
  sync_users          boolean NOT NULL,
  push_signatures     boolean NOT NULL,
  last_sync_at        timestamptz,
  last_push_at        timestamptz,
  last_error          text,
  last_error_at       timestamptz,
  -- The scheduler: when the next directory sync is due, and the newest change to the org's users,
  -- templates or org row it has already queued a push for.
  next_sync_at        timestamptz NOT NULL DEFAULT now(),
  changes_seen_at     timestamptz NOT NULL DEFAULT now(),
  -- One sync and one push of an org at a time, across instances: the running one holds a lease it
  -- renews; a crashed instance's lease runs out.
  sync_lease_until    timestamptz,
  sync_lease_token    text,
  push_lease_until    timestamptz,
  push_lease_token    text,
  version             integer NOT NULL DEFAULT 1,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);

-- What the scheduler reads every few seconds: the newest change of each org's users and templates.
CREATE INDEX users_org_updated ON users (org_id, updated_at);
CREATE INDEX templates_org_updated ON templates (org_id, updated_at);
