-- Click addresses as the truncation reads them (src/clicks/scanners.ts, plainAddress): an IPv4
-- client of a dual-stack listener was kept as `::ffff:a.b.c.d`, whose /48 is `::` (the address
-- lost whole instead of kept to its /24), and a zone id (`fe80::1%eth0`) is not an `inet`, so one
-- such row made every hourly truncation fail. New clicks are recorded plain; these are the old ones.
UPDATE clicks SET address = split_part(address, '%', 1) WHERE position('%' in address) > 0;
UPDATE clicks SET address = substr(address, 8) WHERE address ILIKE '::ffff:%.%';
