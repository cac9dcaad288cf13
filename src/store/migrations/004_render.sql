-- Rendering: the email-safe form of each template's HTML, and open counts of the tracking pixel.

ALTER TABLE templates ADD COLUMN html_prepared text;
UPDATE templates SET html_prepared = html;
ALTER TABLE templates ALTER COLUMN html_prepared SET NOT NULL;

CREATE TABLE opens (
  org_id   uuid NOT NULL REFERENCES orgs(id),
  user_id  uuid NOT NULL REFERENCES users(id),
  day      date NOT NULL,
  real     integer NOT NULL DEFAULT 0,
  proxied  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);
CREATE INDEX opens_org_day ON opens (org_id, day);
