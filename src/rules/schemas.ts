// The shapes of `GET/PUT /v1/orgs/{orgId}/rules` (docs/api.md, "Rules"). The audience of a campaign
// (src/campaigns/) is the same `when` object.
import { z } from 'zod';
import { text, uuid } from '../http/schemas.ts';

const names = (what: string) => z.array(text().trim().min(1).max(200)).min(1).max(100).describe(`${what}: any one of them`);

export const whenSchema = z
  .strictObject({
    departments: names('departments (compared without case)').optional(),
    roles: z
      .array(z.enum(['member', 'admin', 'owner']))
      .min(1)
      .max(3)
      .optional()
      .describe('roles: any one of them'),
    userIds: z.array(uuid).min(1).max(1000).optional().describe('these users'),
    groups: names('SCIM groups by display name (GET …/groups)').optional(),
    attributes: z
      .record(text().regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a custom field key'), text().trim().max(500))
      .refine((a) => Object.keys(a).length <= 20, { message: 'at most 20 attributes' })
      .optional()
      .describe('custom field values the user must have, every one (compared without case)'),
    emailDomains: z
      .array(
        text()
          .trim()
          .toLowerCase()
          .regex(/^@?[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a domain such as example.com'),
      )
      .min(1)
      .max(100)
      .optional()
      .describe("the domain of the user's address: any one of them"),
  })
  .meta({
    id: 'RuleWhen',
    description: 'Every condition given must hold; `{}` matches everyone. Each list matches when the user meets any one of its entries.',
  });

const ruleInput = z.strictObject({
  ruleId: uuid
    .optional()
    .describe("keep a rule's id (and its place in history) by sending it back: one of the org's current rules (else 400); new rules leave it out and get one"),
  name: text().trim().min(1).max(100),
  when: whenSchema,
  templateId: uuid.describe('the template for new messages'),
  replyTemplateId: uuid.optional().describe('the template for replies and forwards; without it, templateId'),
});

/**
 * The whole list is one stored value, written and read on the event loop: at 3.9 MB (100 rules of
 * 1,000 userIds each, within the per-field limits) a save held it for 0.5–1.1 s on the embedded
 * store, against DECISIONS' 100 ms. Large audiences are SCIM groups, not lists of ids.
 */
export const MAX_RULES_BYTES = 256 * 1024;

export const rulesBodySchema = z
  .array(ruleInput)
  .max(100)
  .refine((rules) => Buffer.byteLength(JSON.stringify(rules)) <= MAX_RULES_BYTES, {
    message: `the rules are at most ${MAX_RULES_BYTES / 1024} KB of JSON in all: name large audiences by SCIM group (when.groups) rather than by userIds`,
  })
  .describe('the whole list, in order: the first rule a user meets wins (at most 100 rules, 256 KB of JSON)')
  .meta({
    examples: [
      [
        {
          name: 'Sales',
          when: { departments: ['Sales'] },
          templateId: '6f1c2b9e-3d4a-4c5b-8e7f-9a0b1c2d3e4f',
          replyTemplateId: '7a2d3c0f-4e5b-4d6c-9f8a-0b1c2d3e4f5a',
        },
        {
          name: 'Partners in EMEA',
          when: { emailDomains: ['partner.example'], attributes: { region: 'EMEA' } },
          templateId: '6f1c2b9e-3d4a-4c5b-8e7f-9a0b1c2d3e4f',
        },
      ],
    ],
  });

export const ruleSchema = z
  .object({
    ruleId: z.string(),
    name: z.string(),
    when: whenSchema,
    templateId: z.string(),
    replyTemplateId: z.string().optional(),
  })
  .meta({ id: 'Rule' });

export const ruleListSchema = z.array(ruleSchema).meta({
  id: 'RuleList',
  examples: [
    [
      {
        ruleId: '0b9a7c1e-5f2d-4e8a-9c3b-1d2e3f4a5b6c',
        name: 'Sales',
        when: { departments: ['Sales'] },
        templateId: '6f1c2b9e-3d4a-4c5b-8e7f-9a0b1c2d3e4f',
        replyTemplateId: '7a2d3c0f-4e5b-4d6c-9f8a-0b1c2d3e4f5a',
      },
    ],
  ],
});
