-- Assignment rules (docs/api.md, "Rules"): an org's ordered list of {ruleId, name, when, templateId,
-- replyTemplateId}, first match wins. The list is written whole (PUT), so it is one JSON document
-- per org with its own version, which `GET/PUT …/rules` answer as the ETag.
CREATE TABLE org_rules (
  org_id     uuid PRIMARY KEY REFERENCES orgs(id),
  rules      jsonb NOT NULL DEFAULT '[]'::jsonb,
  version    integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);
