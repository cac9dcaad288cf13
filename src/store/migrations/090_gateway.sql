-- The SMTP signature gateway (docs/gateway.md).
-- Sender domains an org claims. Several orgs may claim one domain; it is verified for one org at a
-- time (the partial unique index), by its DNS TXT record or by staff.
CREATE TABLE org_domains (
  org_id       uuid NOT NULL REFERENCES orgs (id),
  domain       text NOT NULL,
  token        text NOT NULL,
  verified_at  timestamptz,
  verified_by  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, domain)
);
CREATE UNIQUE INDEX org_domains_verified ON org_domains (domain) WHERE verified_at IS NOT NULL;

-- One gateway per org: where its mail goes next, who may relay, and its SMTP credentials (only
-- the SHA-256 of the password, a random 24-byte secret, is kept).
CREATE TABLE gateway_settings (
  org_id            uuid PRIMARY KEY REFERENCES orgs (id),
  gateway_id        text NOT NULL UNIQUE,
  password_hash     text NOT NULL,
  next_hop_host     text NOT NULL,
  next_hop_port     integer NOT NULL,
  next_hop_secure   boolean NOT NULL,
  allowed_networks  jsonb NOT NULL DEFAULT '[]',
  stamp_internal    boolean NOT NULL DEFAULT false,
  m365_tenant_id    text,
  last_message_at   timestamptz,
  version           integer NOT NULL DEFAULT 1,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Messages per org, UTC day and outcome (the settings' `counts`).
CREATE TABLE gateway_counts (
  org_id   uuid NOT NULL REFERENCES orgs (id),
  day      date NOT NULL,
  outcome  text NOT NULL,
  count    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, day, outcome)
);

-- Refusals and failures, for staff across orgs (`GET /v1/admin/gateway-errors`). org_id is null
-- when no org was proven.
CREATE TABLE gateway_errors (
  seq             bigserial PRIMARY KEY,
  org_id          uuid REFERENCES orgs (id),
  at              timestamptz NOT NULL,
  outcome         text NOT NULL,
  reason          text NOT NULL,
  correlation_id  text NOT NULL,
  client_address  text,
  sender          text
);
CREATE INDEX gateway_errors_at ON gateway_errors (at);
