-- Sign-in failures count within a window (5 within 15 minutes lock an account), wrong TOTP codes
-- included: the window starts at the first failure after the last one expired or a sign-in succeeded.
ALTER TABLE users ADD COLUMN failures_since timestamptz;
ALTER TABLE staff ADD COLUMN failures_since timestamptz;
