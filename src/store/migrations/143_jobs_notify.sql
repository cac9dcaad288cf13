-- A job that becomes due tells the job queues at once, instead of waiting for their next poll
-- (src/jobs/wakeups.ts). On every row that is queued (a new job, a retry, a job given back), the
-- trigger sends NOTIFY on `sigsvc_jobs` with `<kind> <ms until due>`; PostgreSQL delivers it to every
-- listening instance when the transaction commits, and not at all when it rolls back, so a queue is
-- woken exactly when the job can be claimed. The polls stay, slower, for what no notification
-- announces (a crashed instance's lease that expires).
CREATE FUNCTION jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- clock_timestamp(), not now() (the transaction's start): a job queued late in a long transaction
  -- would be announced late by that much. It is the time of the insert, before the commit, so a
  -- job is never announced early (late at most by the rest of its transaction).
  PERFORM pg_notify('sigsvc_jobs', NEW.kind || ' ' || greatest(0, ceil(extract(epoch FROM NEW.run_after - clock_timestamp()) * 1000))::bigint);
  RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF state, run_after ON jobs
  FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION jobs_notify();
