-- A click's org is not checked against `orgs` on insert. Every click comes from a token the
-- service signed for one of its orgs, and orgs are never deleted, so the check could only refuse
-- a row the service itself made; and it cost: PostgreSQL checks a foreign key by a query per row,
-- ~20 µs of the embedded store's ~45 µs a row in a batch of 1,000 (BENCHMARKS.md, "click"). It also
-- let one row stall every org's clicks: a batch that fails is kept and written again before any
-- later click, so a row the check refused for good would have held all of them back.
ALTER TABLE clicks DROP CONSTRAINT clicks_org_id_fkey;
