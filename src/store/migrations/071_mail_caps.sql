-- Mail caps (src/mail/caps.ts): mails an org sent in a calendar hour (UTC), and invitation resends
-- to one user in an hour. One counter row per subject and hour, taken atomically by an upsert
-- that stops at the cap, so instances sending at the same time never pass it.
CREATE TABLE mail_counts (
  kind        text NOT NULL CHECK (kind IN ('org', 'resend')),
  subject_id  uuid NOT NULL,
  hour        timestamptz NOT NULL,
  count       integer NOT NULL CHECK (count >= 0),
  PRIMARY KEY (kind, subject_id, hour)
);
