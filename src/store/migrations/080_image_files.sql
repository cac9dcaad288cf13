-- Image bytes leave the embedded database (DECISIONS wave 3, "Nothing big on the event loop"):
-- embedded, they are files under DATA_DIR (src/images/files.ts) and the row keeps only what the
-- image is; on a PostgreSQL server the row keeps them, so every instance serves them. A deleted
-- image's bytes are dropped with it (nothing serves them), so the per-org caps bound storage.
ALTER TABLE images ALTER COLUMN data DROP NOT NULL;
UPDATE images SET data = NULL WHERE deleted_at IS NOT NULL;
