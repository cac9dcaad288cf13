-- People getting in: invitation and password-reset links, a user's status and verified address,
-- and email addresses unique across the stage among live users.

-- A live user's address is unique across the stage (one account signs in to one org). Stop, naming
-- them, when addresses are already shared by live users of several orgs: which one keeps the
-- address is for the operator to decide.
DO $$
DECLARE shared text;
BEGIN
  SELECT string_agg(address, ', ' ORDER BY address) INTO shared FROM (
    SELECT lower(email) AS address FROM users WHERE deleted_at IS NULL
    GROUP BY lower(email) HAVING count(DISTINCT org_id) > 1
  ) d;
  IF shared IS NOT NULL THEN
    RAISE EXCEPTION 'email addresses must be unique across the stage, but live users of more than one organisation share these: %. Change or delete all but one user of each address, then migrate again.', shared;
  END IF;
END $$;
CREATE UNIQUE INDEX users_email_live ON users (lower(email)) WHERE deleted_at IS NULL;

-- `invited` until the user has a password (accepted an invitation, reset one, or was given one).
ALTER TABLE users
  ADD COLUMN status text NOT NULL DEFAULT 'invited' CHECK (status IN ('invited', 'active')),
  ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
UPDATE users SET status = 'active' WHERE password_hash IS NOT NULL;
ALTER TABLE staff ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

-- One-time links sent by mail. Only a hash of the token is kept; `link_token` holds the token of an
-- invitation an admin must hand over (no SMTP_URL), and is cleared once the link is used or void.
CREATE TABLE account_tokens (
  id            uuid PRIMARY KEY,
  purpose       text NOT NULL CHECK (purpose IN ('invitation', 'password_reset')),
  account_kind  text NOT NULL CHECK (account_kind IN ('user', 'staff')),
  account_id    uuid NOT NULL,
  org_id        uuid REFERENCES orgs(id),
  -- The address the link went to: a link stops working when the account's address changes.
  email         text NOT NULL,
  token_hash    text NOT NULL UNIQUE,
  link_token    text,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz,
  voided_at     timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_tokens_account ON account_tokens (account_id, purpose, created_at);
