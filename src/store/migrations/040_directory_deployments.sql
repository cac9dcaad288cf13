-- Directory sync (src/directory/) and per-user deployment state (src/deployments/), shared by the
-- Google Workspace and Microsoft 365 integrations.

-- Which directory created (or adopted by address) a user, and the user's id there. A sync touches
-- only users it links; users created through the API stay untouched unless the directory has
-- their address.
ALTER TABLE users ADD COLUMN directory_source text CHECK (directory_source IN ('google', 'microsoft'));
ALTER TABLE users ADD COLUMN directory_id text;
CREATE INDEX users_org_directory ON users (org_id, directory_source) WHERE directory_source IS NOT NULL;

-- What each sync changed (a dry run changes nothing and records nothing): the counts, and one entry per user it created, updated,
-- deleted or skipped (`changes`: [{action, userId, email, fields, reason}]).
CREATE TABLE directory_runs (
  id            uuid PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  org_id        uuid NOT NULL REFERENCES orgs(id),
  source        text NOT NULL CHECK (source IN ('google', 'microsoft')),
  created       integer NOT NULL DEFAULT 0,
  updated       integer NOT NULL DEFAULT 0,
  deleted       integer NOT NULL DEFAULT 0,
  skipped       integer NOT NULL DEFAULT 0,
  changes       jsonb NOT NULL DEFAULT '[]',
  started_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX directory_runs_org_seq ON directory_runs (org_id, source, seq DESC);

-- Per user and target, where their signature stands. `content_hash` is the SHA-256 of what was
-- last deployed: a push sends only what differs from it.
CREATE TABLE deployments (
  org_id        uuid NOT NULL REFERENCES orgs(id),
  user_id       uuid NOT NULL REFERENCES users(id),
  target        text NOT NULL CHECK (target IN ('gmail', 'outlook')),
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  state         text NOT NULL CHECK (state IN ('pending', 'deployed', 'failed', 'skipped')),
  reason        text,
  error         text,
  content_hash  text,
  deployed_at   timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target)
);
CREATE UNIQUE INDEX deployments_org_seq ON deployments (org_id, seq);
CREATE INDEX deployments_org_state ON deployments (org_id, target, state, seq);
