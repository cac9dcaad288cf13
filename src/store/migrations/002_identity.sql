-- The identity provider: staff accounts, sign-in state of users, the provider's storage and keys.

ALTER TABLE users
  ADD COLUMN totp_secret          text,
  ADD COLUMN totp_pending_secret  text,
  ADD COLUMN totp_last_step       bigint,
  ADD COLUMN password_must_change boolean NOT NULL DEFAULT false,
  ADD COLUMN failed_logins        integer NOT NULL DEFAULT 0,
  ADD COLUMN locked_until         timestamptz;

-- Staff of the service operator: super-admins of the staff admin app. Not members of any org.
CREATE TABLE staff (
  id                   uuid PRIMARY KEY,
  email                text NOT NULL,
  name                 text NOT NULL DEFAULT '',
  password_hash        text NOT NULL,
  totp_secret          text,
  totp_pending_secret  text,
  totp_last_step       bigint,
  failed_logins        integer NOT NULL DEFAULT 0,
  locked_until         timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at           timestamptz
);
CREATE UNIQUE INDEX staff_email_live ON staff (lower(email)) WHERE deleted_at IS NULL;

-- oidc-provider's models (sessions, grants, codes, tokens, interactions), one row each.
CREATE TABLE oidc_payloads (
  model        text NOT NULL,
  id           text NOT NULL,
  payload      jsonb NOT NULL,
  grant_id     text,
  uid          text,
  user_code    text,
  account_id   text,
  expires_at   timestamptz,
  consumed_at  timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads_account ON oidc_payloads (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX oidc_payloads_expires ON oidc_payloads (expires_at);

-- Signing keys (published in the JWKS) and cookie keys, shared by every instance.
CREATE TABLE idp_keys (
  kid          text PRIMARY KEY,
  use          text NOT NULL CHECK (use IN ('signing', 'cookie')),
  material     jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  retired_at   timestamptz
);
