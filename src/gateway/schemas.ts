// The gateway's request and answer shapes, and the presenters from its rows.
import { z } from 'zod';
import { isoOrNull, iso, nullableTimestamp, text, timestamp } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import type { GatewayErrorRow, GatewaySettingsRow, OrgDomainRow } from '../store/schema.ts';
import { verificationRecord } from './domains.ts';
import { smartHostOf } from './settings.ts';

export const domainParams = z.object({ orgId: z.uuid({ message: 'must be a UUID' }), domain: text().min(1).max(253) });

export const domainSchema = z
  .object({
    domain: z.string(),
    verified: z.boolean(),
    verifiedAt: nullableTimestamp,
    verifiedBy: z.enum(['dns', 'staff']).nullable(),
    verificationRecord: z
      .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
      .describe("the DNS record that proves the domain is the org's"),
    createdAt: timestamp,
  })
  .meta({
    id: 'GatewayDomain',
    examples: [
      {
        domain: 'contoso.com',
        verified: false,
        verifiedAt: null,
        verifiedBy: null,
        verificationRecord: { type: 'TXT', name: '_sigsvc.contoso.com', value: 'sigsvc-verify=3q2-7wEAAAQzZmFrZXRva2Vu' },
        createdAt: EXAMPLE.createdAt,
      },
    ],
  });

export const presentDomain = (row: OrgDomainRow) => ({
  domain: row.domain,
  verified: row.verified_at !== null,
  verifiedAt: isoOrNull(row.verified_at),
  verifiedBy: (row.verified_by as 'dns' | 'staff' | null) ?? null,
  verificationRecord: verificationRecord(row),
  createdAt: iso(row.created_at),
});

const network = z.union([
  text().max(64).describe('a range the org owns (its own servers): `203.0.113.0/24`'),
  z.strictObject({
    cidr: text().max(64),
    shared: z.boolean().default(false).describe("true: a provider's range shared with other customers (Microsoft 365, Google); it never names the org alone"),
  }),
]);

export const settingsBody = z
  .strictObject({
    nextHop: z.strictObject({
      host: text()
        .trim()
        .min(1)
        .max(253)
        .describe("where stamped mail goes next (e.g. your tenant's MX host, or smtp-relay.gmail.com); it must resolve to a public address"),
      port: z.number().int().min(1).max(65535),
      secure: z.boolean().describe('true: TLS from the start (port 465); false: STARTTLS when offered'),
    }),
    allowedNetworks: z.array(network).max(100).default([]),
    stampInternal: z.boolean().default(false).describe("stamp mail whose recipients are all in the org's domains"),
    m365TenantId: text()
      .trim()
      .max(100)
      .nullable()
      .optional()
      .describe("the Microsoft 365 tenant id whose X-MS-Exchange-CrossTenant-Id header names this org (default: the Microsoft integration's tenantId)"),
  })
  .meta({
    examples: [
      {
        nextHop: { host: 'contoso-com.mail.protection.outlook.com', port: 25, secure: false },
        allowedNetworks: [{ cidr: '40.92.0.0/15', shared: true }],
        stampInternal: false,
      },
    ],
  });

const counts = z.object({ stamped: z.number().int(), passed: z.number().int(), refused: z.number().int(), failed: z.number().int() });

export const settingsSchema = z
  .object({
    gatewayId: z.string(),
    username: z.string().describe('the AUTH user name (AUTH PLAIN or LOGIN)'),
    password: z.string().optional().describe('answered once: when the gateway is created and when the password is rotated'),
    smartHost: z.string().nullable().describe('`<gatewayId>.<GATEWAY_DOMAIN>`, the name that names this org by itself (SNI); null without GATEWAY_DOMAIN'),
    nextHop: z.object({ host: z.string(), port: z.number().int(), secure: z.boolean() }),
    allowedNetworks: z.array(z.object({ cidr: z.string(), shared: z.boolean() })),
    stampInternal: z.boolean(),
    m365TenantId: z.string().nullable(),
    lastMessageAt: nullableTimestamp,
    counts: counts.describe('messages since midnight UTC, by outcome'),
    routing: z.object({ microsoft365: z.array(z.string()), googleWorkspace: z.array(z.string()) }).describe('the steps to route mail through the gateway'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'GatewaySettings',
    examples: [
      {
        gatewayId: 'gw3f9a0c2b7d1e4a',
        username: 'gw3f9a0c2b7d1e4a',
        password: 'Vb1n0H4z1Qm8x2kP7sT6wYc3rL5dE9fA',
        smartHost: 'gw3f9a0c2b7d1e4a.gateway.example.com',
        nextHop: { host: 'contoso-com.mail.protection.outlook.com', port: 25, secure: false },
        allowedNetworks: [{ cidr: '40.92.0.0/15', shared: true }],
        stampInternal: false,
        m365TenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        lastMessageAt: EXAMPLE.updatedAt,
        counts: { stamped: 120, passed: 34, refused: 1, failed: 0 },
        routing: {
          microsoft365: ['Exchange admin center → Mail flow → Connectors: …'],
          googleWorkspace: ['Admin console → Apps → Google Workspace → Gmail → Hosts: …'],
        },
        createdAt: EXAMPLE.createdAt,
        updatedAt: EXAMPLE.updatedAt,
      },
    ],
  });

export function presentSettings(
  row: GatewaySettingsRow,
  extra: {
    domain: string | undefined;
    counts: z.infer<typeof counts>;
    routing: { microsoft365: string[]; googleWorkspace: string[] };
    password?: string | undefined;
  },
) {
  return {
    gatewayId: row.gateway_id,
    username: row.gateway_id,
    ...(extra.password ? { password: extra.password } : {}),
    smartHost: smartHostOf(row, extra.domain),
    nextHop: { host: row.next_hop_host, port: row.next_hop_port, secure: row.next_hop_secure },
    allowedNetworks: row.allowed_networks,
    stampInternal: row.stamp_internal,
    m365TenantId: row.m365_tenant_id,
    lastMessageAt: isoOrNull(row.last_message_at),
    counts: extra.counts,
    routing: extra.routing,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const testResultSchema = z
  .object({
    outcome: z.enum(['stamped', 'passed', 'refused', 'failed']),
    reply: z.string().describe("what the gateway answered (the next hop's answer when it relayed)"),
    correlationId: z.string(),
  })
  .meta({ examples: [{ outcome: 'stamped', reply: '250 2.0.0 OK queued', correlationId: EXAMPLE.correlationId }] });

export const gatewayErrorSchema = z
  .object({
    orgId: z.string().nullable(),
    at: timestamp,
    outcome: z.enum(['refused', 'failed']),
    reason: z.string(),
    correlationId: z.string(),
    clientAddress: z.string().nullable(),
    sender: z.string().nullable(),
  })
  .meta({
    id: 'GatewayError',
    examples: [
      {
        orgId: '9b2f8c4e-1d3a-4e5f-8a7b-6c5d4e3f2a1b',
        at: EXAMPLE.updatedAt,
        outcome: 'refused',
        reason: '5.7.1 The From domain belongs to another organisation',
        correlationId: EXAMPLE.correlationId,
        clientAddress: '40.92.4.10',
        sender: 'ceo@contoso.com',
      },
    ],
  });

export const gatewayErrorsSchema = z
  .object({ items: z.array(gatewayErrorSchema) })
  .meta({ examples: [{ items: z.globalRegistry.get(gatewayErrorSchema)?.examples as unknown[] }] });
export const domainsSchema = z
  .object({ items: z.array(domainSchema) })
  .meta({ examples: [{ items: z.globalRegistry.get(domainSchema)?.examples as unknown[] }] });

export const presentError = (r: GatewayErrorRow) => ({
  orgId: r.org_id,
  at: new Date(r.at).toISOString(),
  outcome: r.outcome as 'refused' | 'failed',
  reason: r.reason,
  correlationId: r.correlation_id,
  clientAddress: r.client_address,
  sender: r.sender,
});
