-- How many live (not deleted) users each org has, kept by the database on every write to users, so
-- that the seat check (src/billing/seats.ts), which runs in every transaction that creates a user,
-- reads one row instead of counting the org's users: a directory sync creating n users made n
-- counts over a growing org, quadratic in its size (BENCHMARKS.md, "the sync's seat check").
CREATE TABLE org_live_users (
  org_id uuid PRIMARY KEY REFERENCES orgs(id),
  live   integer NOT NULL CHECK (live >= 0)
);

CREATE FUNCTION count_live_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
    UPDATE org_live_users SET live = live - 1 WHERE org_id = OLD.org_id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
    INSERT INTO org_live_users AS c (org_id, live) VALUES (NEW.org_id, 1)
      ON CONFLICT (org_id) DO UPDATE SET live = c.live + 1;
  END IF;
  RETURN NULL;
END $$;

-- The triggers first: creating them locks users against writes until this migration commits, so
-- the count below misses no user written meanwhile by an instance still running.
CREATE TRIGGER users_live_count AFTER INSERT OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION count_live_users();
CREATE TRIGGER users_live_count_update AFTER UPDATE OF deleted_at, org_id ON users FOR EACH ROW
  WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.org_id <> NEW.org_id)
  EXECUTE FUNCTION count_live_users();

INSERT INTO org_live_users (org_id, live)
  SELECT org_id, count(*) FROM users WHERE deleted_at IS NULL GROUP BY org_id;
