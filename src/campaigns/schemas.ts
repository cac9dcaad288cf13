// The shapes of `/v1/orgs/{orgId}/campaigns` (docs/api.md, "Campaigns").
import { z } from 'zod';
import { inputTimestamp, text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { webUrl } from '../http/profile-schemas.ts';
import { whenSchema } from '../rules/module.ts';

const variantSchema = z.strictObject({
  imageId: uuid.describe("one of the org's images (POST …/images)"),
  link: webUrl().describe("where the banner leads; the campaign's UTM parameters are added"),
  alt: text().trim().max(200).describe("the image's text for readers without images, and the plain-text signature's line"),
  weight: z.number().int().min(0).max(1000).describe('a share of the audience; 0 pauses the variant'),
});

const utmSchema = z
  .strictObject({ source: text().trim().min(1).max(100), medium: text().trim().min(1).max(100), campaign: text().trim().min(1).max(100) })
  .describe('added to every link of the banner as utm_source, utm_medium and utm_campaign');

const EXAMPLE = {
  name: 'Winter sale',
  startsAt: '2026-12-01T09:00:00.000Z',
  endsAt: '2026-12-24T18:00:00.000Z',
  audience: { departments: ['Sales'] },
  variants: [
    { imageId: '2b8c4f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f', link: 'https://shop.example/winter', alt: 'Winter sale: 20% off', weight: 1 },
    { imageId: '3c9d5a1f-2b3c-4d4e-9f0a-1b2c3d4e5f6a', link: 'https://shop.example/winter', alt: 'Winter sale ends soon', weight: 1 },
  ],
  utm: { source: 'signature', medium: 'email', campaign: 'winter-sale' },
};

export const campaignCreateSchema = z
  .strictObject({
    name: text().trim().min(1).max(100),
    startsAt: inputTimestamp.describe('when the banner starts showing (ISO 8601)'),
    endsAt: inputTimestamp.nullable().optional().describe('when it stops; none: until ended'),
    audience: whenSchema.describe("who sees it: the same conditions as a rule's `when`; `{}` is everyone"),
    variants: z.array(variantSchema).min(1).max(10),
    utm: utmSchema.nullable().optional(),
  })
  .meta({ examples: [EXAMPLE] });

export const campaignPatchSchema = z
  .strictObject({
    version: versionField,
    name: text().trim().min(1).max(100).optional(),
    startsAt: inputTimestamp.optional(),
    endsAt: inputTimestamp.nullable().optional().describe('end it now: the current time'),
    audience: whenSchema.optional(),
    variants: z.array(variantSchema).min(1).max(10).optional(),
    utm: utmSchema.nullable().optional(),
  })
  .meta({ examples: [{ version: 1, endsAt: '2026-12-10T12:00:00.000Z' }] });

export const campaignSchema = z
  .object({
    campaignId: z.string(),
    name: z.string(),
    startsAt: timestamp,
    endsAt: timestamp.nullable(),
    status: z.enum(['scheduled', 'active', 'ended']).describe('from the times: before startsAt, until endsAt, after it'),
    audience: whenSchema,
    variants: z.array(z.object({ imageId: z.string(), link: z.string(), alt: z.string(), weight: z.number().int() })),
    utm: z.object({ source: z.string(), medium: z.string(), campaign: z.string() }).nullable(),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'Campaign',
    examples: [
      {
        campaignId: '4d0e6b2a-3c4d-4e5f-8a0b-2c3d4e5f6a7b',
        ...EXAMPLE,
        status: 'scheduled',
        version: 1,
        createdAt: '2026-11-25T10:00:00.000Z',
        updatedAt: '2026-11-25T10:00:00.000Z',
      },
    ],
  });

export const campaignParams = z.object({ orgId: uuid, campaignId: uuid });

const counts = { impressions: z.number().int(), clicks: z.number().int(), humanClicks: z.number().int(), suspectedBotClicks: z.number().int() };
export const campaignStatsSchema = z
  .object({
    campaignId: z.string(),
    variants: z.array(
      z.object({ variant: z.number().int().describe('its index'), imageId: z.string(), alt: z.string(), ...counts, ctr: z.number().nullable() }),
    ),
    days: z.array(z.object({ date: z.string(), ...counts })),
  })
  .meta({
    id: 'CampaignStats',
    examples: [
      {
        campaignId: '4d0e6b2a-3c4d-4e5f-8a0b-2c3d4e5f6a7b',
        variants: [
          {
            variant: 0,
            imageId: '2b8c4f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
            alt: 'Winter sale: 20% off',
            impressions: 200,
            clicks: 9,
            humanClicks: 6,
            suspectedBotClicks: 3,
            ctr: 0.03,
          },
        ],
        days: [{ date: '2026-12-01', impressions: 200, clicks: 9, humanClicks: 6, suspectedBotClicks: 3 }],
      },
    ],
  });
