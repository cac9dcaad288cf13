-- Photos from the directory (docs/api.md, "Photos"; src/directory/photos.ts): where a user's photo
-- came from, so a sync replaces only the photos it set and never one a person chose.
--   photo_source: null (no one chose a photo yet), 'directory' (a sync set it), 'person' (an admin
--   or the user uploaded, set or removed it: the directory leaves it alone from then on).
--   directory_photo_etag: the directory's mark of the photo the last sync looked at, so an
--   unchanged photo is not downloaded again.
--   directory_photo_checked_at: when a sync last asked the directory (Entra answers marks one user
--   at a time, so a run asks the least recently checked users first, up to its cap).
ALTER TABLE users
  ADD COLUMN photo_source               text CHECK (photo_source IN ('directory', 'person')),
  ADD COLUMN directory_photo_etag       text,
  ADD COLUMN directory_photo_checked_at timestamptz;
