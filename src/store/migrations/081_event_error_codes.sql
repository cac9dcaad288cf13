-- A failed payment event keeps a stable code beside its error, and the error is a sentence for
-- staff, not the driver's text (src/billing/failure.ts): the raw error goes to the log only.
ALTER TABLE webhook_events ADD COLUMN error_code text;

UPDATE webhook_events SET error_code = 'NO_ORG' WHERE error LIKE 'no org for this event%';
UPDATE webhook_events SET error_code = 'EVENT_DATA' WHERE error LIKE '% holds a NUL character or a lone surrogate%';
UPDATE webhook_events
  SET error_code = 'CUSTOMER_TAKEN',
      error = 'The event links a payment customer that another organisation already has (each organisation has its own). Replay it once that organisation has moved to another customer; the service log has the details under the event''s id.'
  WHERE error LIKE 'duplicate key value violates unique constraint "orgs_provider_customer_id_key"%';
UPDATE webhook_events
  SET error_code = 'CONFLICT',
      error = 'The event conflicts with data the service already holds (a value that must be unique). The event is kept for replay; the service log has the details under the event''s id.'
  WHERE error LIKE 'duplicate key value violates unique constraint%';
UPDATE webhook_events
  SET error_code = 'DATABASE_REFUSED',
      error = 'The database refused the change the event makes. The event is kept for replay; the service log has the details under the event''s id.'
  WHERE error_code IS NULL AND error ~ '(violates (foreign key|check|not-null) constraint|null value in column|invalid input syntax|value too long)';
