-- The durable job queue (src/jobs/): mail, directory syncs, signature pushes. A job is written in
-- the transaction of the change that causes it, claimed by one instance at a time under a lease
-- (FOR UPDATE SKIP LOCKED), retried with backoff, and kept after it ends so its state can be read.
CREATE TABLE jobs (
  id              uuid PRIMARY KEY,
  kind            text NOT NULL,
  -- NULL for stage-wide work (mail to staff); otherwise the org the job belongs to.
  org_id          uuid REFERENCES orgs(id),
  payload         jsonb NOT NULL DEFAULT '{}'::jsonb,
  state           text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  run_after       timestamptz NOT NULL DEFAULT now(),
  -- While running: until when the claim holds, and the claim's own token (a new one per claim, so
  -- an instance that lost its lease can no longer write the job).
  lease_until     timestamptz,
  lease_token     uuid,
  progress_done   integer,
  progress_total  integer,
  error           text,
  dedupe_key      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  finished_at     timestamptz
);
-- What a worker looks for: queued jobs that are due, and running jobs whose lease expired.
CREATE INDEX jobs_due ON jobs (run_after) WHERE state = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE state = 'running';
CREATE INDEX jobs_org ON jobs (org_id, created_at);
-- One queued job per kind, org and dedupe key: enqueueing it again finds the one waiting.
CREATE UNIQUE INDEX jobs_dedupe ON jobs (kind, (coalesce(org_id, '00000000-0000-0000-0000-000000000000'::uuid)), dedupe_key)
  WHERE dedupe_key IS NOT NULL AND state = 'queued';
