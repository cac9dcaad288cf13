-- Wave 3: the user status `suspended` (SCIM `active: false`, a directory's suspended or disabled
-- account, an admin's choice), SCIM 2.0 provisioning (src/scim/): the per-org token, and groups
-- with their members.

-- A suspended user keeps their row and profile but cannot sign in, takes no seat and gets no
-- signature. Directories may now be SCIM too.
ALTER TABLE users DROP CONSTRAINT users_status_check;
ALTER TABLE users ADD CONSTRAINT users_status_check CHECK (status IN ('invited', 'active', 'suspended'));
ALTER TABLE users DROP CONSTRAINT users_directory_source_check;
ALTER TABLE users ADD CONSTRAINT users_directory_source_check CHECK (directory_source IN ('google', 'microsoft', 'scim'));
ALTER TABLE directory_runs DROP CONSTRAINT directory_runs_source_check;
ALTER TABLE directory_runs ADD CONSTRAINT directory_runs_source_check CHECK (source IN ('google', 'microsoft', 'scim'));

-- The seat count (042_org_live_users.sql) now counts the users who hold a seat: live and not
-- suspended. The same triggers, also fired when the status changes; the counts taken again.
CREATE OR REPLACE FUNCTION count_live_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL AND OLD.status <> 'suspended' THEN
    UPDATE org_live_users SET live = live - 1 WHERE org_id = OLD.org_id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL AND NEW.status <> 'suspended' THEN
    INSERT INTO org_live_users AS c (org_id, live) VALUES (NEW.org_id, 1)
      ON CONFLICT (org_id) DO UPDATE SET live = c.live + 1;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER users_live_count_update ON users;
CREATE TRIGGER users_live_count_update AFTER UPDATE OF deleted_at, org_id, status ON users FOR EACH ROW
  WHEN ((OLD.deleted_at IS NULL AND OLD.status <> 'suspended') <> (NEW.deleted_at IS NULL AND NEW.status <> 'suspended') OR OLD.org_id <> NEW.org_id)
  EXECUTE FUNCTION count_live_users();

-- The SCIM client's own id of a user (`externalId`, kept and filtered on); users.directory_id
-- holds it for SCIM users too, so one index serves the filter.
CREATE INDEX users_org_directory_id ON users (org_id, directory_id) WHERE directory_id IS NOT NULL AND deleted_at IS NULL;

-- One SCIM token per org: only its SHA-256 is kept (shown once); `last_request_at` for the dashboard.
CREATE TABLE scim_tokens (
  org_id          uuid PRIMARY KEY REFERENCES orgs(id),
  token_hash      text NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_request_at timestamptz
);

-- Groups as a SCIM client pushes them (rules target them by display name), and their members.
CREATE TABLE scim_groups (
  id           uuid PRIMARY KEY,
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  org_id       uuid NOT NULL REFERENCES orgs(id),
  display_name text NOT NULL,
  external_id  text,
  version      integer NOT NULL DEFAULT 1,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scim_groups_org_seq ON scim_groups (org_id, seq);
CREATE UNIQUE INDEX scim_groups_org_name ON scim_groups (org_id, lower(display_name));

CREATE TABLE scim_group_members (
  group_id uuid NOT NULL REFERENCES scim_groups(id) ON DELETE CASCADE,
  user_id  uuid NOT NULL REFERENCES users(id),
  org_id   uuid NOT NULL REFERENCES orgs(id),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX scim_group_members_user ON scim_group_members (org_id, user_id);
