-- Richer profiles (docs/api.md, "Profiles"): what a signature shows of a person beyond their name
-- and numbers, what it shows of the org, the org's own custom fields, and which of them members
-- edit themselves. Links and custom values are JSON objects: a network or field is a key, and an
-- absent key is an empty value (nothing to render).
ALTER TABLE users
  ADD COLUMN pronouns       text NOT NULL DEFAULT '',
  ADD COLUMN website        text NOT NULL DEFAULT '',
  ADD COLUMN address        text NOT NULL DEFAULT '',
  ADD COLUMN photo_image_id uuid,
  ADD COLUMN social         jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN attributes     jsonb NOT NULL DEFAULT '{}'::jsonb;

ALTER TABLE orgs
  ADD COLUMN website             text NOT NULL DEFAULT '',
  ADD COLUMN address             text NOT NULL DEFAULT '',
  ADD COLUMN social              jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN logo_image_id       uuid,
  ADD COLUMN self_service_fields jsonb NOT NULL DEFAULT '["name","pronouns","phone","mobile","photoImageId","social"]'::jsonb,
  -- The custom fields ([{key, label, type, selfService}]) and their own version: `PUT …/fields`
  -- answers it as the ETag, so an unrelated change of the org does not make an editor's copy stale.
  ADD COLUMN fields              jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN fields_version      integer NOT NULL DEFAULT 1;

-- A template made in the designer keeps its design document; `source` says which of the design
-- and the hand-written html/text the template currently is (a hand edit keeps the design as history).
ALTER TABLE templates
  ADD COLUMN design jsonb,
  ADD COLUMN source text NOT NULL DEFAULT 'html' CHECK (source IN ('html', 'design'));
