-- An org's history in the very order billing applies it (src/billing/state-machine.ts,
-- compareKeys): created (else received), the rank of the event's type (HANDLED_EVENTS' order,
-- which breaks ties of created), then arrival (seq). With the whole key in the index, the event
-- right before a late one and the events after it are read straight from the index, however
-- many events share its second (src/billing/late.ts): 136's index, on the instant alone, made a
-- late event read every event of its second, a thousand under a steady stream.
CREATE FUNCTION billing_event_rank(type text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_position(ARRAY['checkout.session.completed', 'customer.subscription.created', 'customer.subscription.updated',
    'customer.subscription.deleted', 'invoice.paid', 'invoice.payment_failed']::text[], type) - 1
$$;
-- Partial as 136's, so that the planner, without statistics (the embedded store has no
-- autovacuum), still reads the history from it.
CREATE INDEX webhook_events_org_key ON webhook_events (org_id, (coalesce(created_at, received_at)), (billing_event_rank(type)), seq)
  WHERE org_id IS NOT NULL AND status IN ('applied', 'ignored');
DROP INDEX webhook_events_org_at;
