-- What the dashboard needs: images kept in the database (every instance serves them), and the
-- indexes of the users search and the audit filters (DECISIONS, "Images" and "Lists that grow").

CREATE TABLE images (
  id            uuid PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  org_id        uuid NOT NULL REFERENCES orgs(id),
  content_type  text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/gif')),
  width         integer NOT NULL CHECK (width > 0),
  height        integer NOT NULL CHECK (height > 0),
  bytes         integer NOT NULL CHECK (bytes > 0),
  sha256        text NOT NULL,
  data          bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);
CREATE INDEX images_org_seq ON images (org_id, seq) WHERE deleted_at IS NULL;

-- Audit: by actor, and by date (keyset on id, so a date range is a range of ids within the org).
CREATE INDEX audit_entries_org_actor ON audit_entries (org_id, actor_id, id DESC);
CREATE INDEX audit_entries_org_at ON audit_entries (org_id, at);

-- Users: the role and department filters; the search (q) scans the org's live users with ILIKE.
CREATE INDEX users_org_role ON users (org_id, role, seq) WHERE deleted_at IS NULL;
CREATE INDEX users_org_department ON users (org_id, lower(department), seq) WHERE deleted_at IS NULL;
