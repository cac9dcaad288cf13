-- The Outlook add-in of each org (issue 20). The key is looked up by its SHA-256 on every add-in
-- request; it is kept sealed (AES-256-GCM under SECRETS_KEY) only so the dashboard can show it
-- again and write it into the manifest. `key_version` is the manifest's version: rotating the key
-- raises it, so Microsoft 365 takes the new manifest as an update of the same add-in. When the
-- add-in last fetched each user's signature is their `deployments` row (target `outlook`).
CREATE TABLE outlook_addins (
  org_id uuid PRIMARY KEY REFERENCES orgs (id),
  key_hash text NOT NULL UNIQUE,
  key_sealed text NOT NULL,
  key_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz NOT NULL DEFAULT now(),
  last_fetch_at timestamptz
);

