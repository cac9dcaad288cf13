-- Campaigns (docs/api.md, "Campaigns"): scheduled banners for an audience (a rules `when` object),
-- with weighted variants ([{imageId, link, alt, weight}]) and UTM parameters. Their status is
-- derived from the times, never stored. Deleted campaigns keep their row (stats refer to it).
CREATE TABLE campaigns (
  id         uuid PRIMARY KEY,
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  org_id     uuid NOT NULL REFERENCES orgs(id),
  name       text NOT NULL,
  starts_at  timestamptz NOT NULL,
  ends_at    timestamptz,
  audience   jsonb NOT NULL DEFAULT '{}'::jsonb,
  variants   jsonb NOT NULL,
  utm        jsonb,
  version    integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX campaigns_org_seq ON campaigns (org_id, seq) WHERE deleted_at IS NULL;
