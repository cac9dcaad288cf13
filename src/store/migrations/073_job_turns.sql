-- The fair queue (src/store/repositories/jobs.ts, claim): when each org's job was last claimed, so
-- that claims go round-robin across orgs. `org_key` is the org's id, or the nil uuid for
-- stage-wide jobs. One row per org that ever had a job.
CREATE TABLE job_turns (
  org_key     uuid PRIMARY KEY,
  claimed_at  timestamptz NOT NULL
);
