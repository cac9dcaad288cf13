-- Orgs (tenants), their users, templates, API keys and audit trail.

CREATE TABLE orgs (
  id                     uuid PRIMARY KEY,
  name                   text NOT NULL,
  subscription_status    text NOT NULL DEFAULT 'trialing',
  plan                   text NOT NULL DEFAULT 'trial',
  price_version          text,
  seats                  integer NOT NULL DEFAULT 5 CHECK (seats >= 0),
  over_seat_limit        boolean NOT NULL DEFAULT false,
  current_period_end     timestamptz,
  grace_period_ends_at   timestamptz,
  provider_customer_id   text UNIQUE,
  version                integer NOT NULL DEFAULT 1,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id             uuid PRIMARY KEY,
  seq            bigint GENERATED ALWAYS AS IDENTITY,
  org_id         uuid NOT NULL REFERENCES orgs(id),
  email          text NOT NULL,
  name           text NOT NULL DEFAULT '',
  role           text NOT NULL CHECK (role IN ('member', 'admin', 'owner')),
  title          text NOT NULL DEFAULT '',
  department     text NOT NULL DEFAULT '',
  phone          text NOT NULL DEFAULT '',
  mobile         text NOT NULL DEFAULT '',
  password_hash  text,
  mfa_enabled    boolean NOT NULL DEFAULT false,
  version        integer NOT NULL DEFAULT 1,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz
);
-- An email is unique per org among live users; a deleted user's email can be reused.
CREATE UNIQUE INDEX users_org_email_live ON users (org_id, lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX users_org_seq ON users (org_id, seq) WHERE deleted_at IS NULL;

CREATE TABLE templates (
  id             uuid PRIMARY KEY,
  seq            bigint GENERATED ALWAYS AS IDENTITY,
  org_id         uuid NOT NULL REFERENCES orgs(id),
  name           text NOT NULL,
  html           text NOT NULL,
  text           text NOT NULL,
  is_default     boolean NOT NULL DEFAULT false,
  version        integer NOT NULL DEFAULT 1,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz
);
CREATE INDEX templates_org_seq ON templates (org_id, seq) WHERE deleted_at IS NULL;
-- At most one live default template per org.
CREATE UNIQUE INDEX templates_one_default ON templates (org_id) WHERE is_default AND deleted_at IS NULL;

CREATE TABLE api_keys (
  id             uuid PRIMARY KEY,
  seq            bigint GENERATED ALWAYS AS IDENTITY,
  org_id         uuid NOT NULL REFERENCES orgs(id),
  name           text NOT NULL,
  prefix         text NOT NULL,
  key_hash       text NOT NULL UNIQUE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX api_keys_org_seq ON api_keys (org_id, seq);

CREATE TABLE audit_entries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id          uuid NOT NULL REFERENCES orgs(id),
  at              timestamptz NOT NULL DEFAULT now(),
  actor_type      text NOT NULL CHECK (actor_type IN ('user', 'apiKey', 'staff', 'paymentProvider', 'system')),
  actor_id        text NOT NULL,
  action          text NOT NULL,
  target_id       text,
  correlation_id  text,
  changes         text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_entries_org_id ON audit_entries (org_id, id DESC);
CREATE INDEX audit_entries_org_action ON audit_entries (org_id, action, id DESC);
CREATE INDEX audit_entries_org_target ON audit_entries (org_id, target_id, id DESC);
