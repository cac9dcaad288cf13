// The org's gateway settings (docs/gateway.md, "Settings"): next hop, allowed networks, internal
// mail, the Microsoft 365 tenant; its SMTP credentials (the password answered once, kept as its
// SHA-256: a random 192-bit secret needs no slow hash); today's counts and the routing steps.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { gatewayRepo } from '../store/repositories/gateway.ts';
import type { GatewaySettingsRow } from '../store/schema.ts';
import { notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { checkNextHop, normalizeNetworks } from './networks.ts';
import type { AddressLookup } from './dns.ts';

export interface SettingsInput {
  nextHop: { host: string; port: number; secure: boolean };
  allowedNetworks: (string | { cidr: string; shared?: boolean | undefined })[];
  stampInternal: boolean;
  m365TenantId?: string | null | undefined;
}

export const hashPassword = (password: string) => createHash('sha256').update(password).digest('hex');
const newPassword = () => randomBytes(24).toString('base64url');
/** A DNS label (the SNI name `<gatewayId>.<GATEWAY_DOMAIN>`), 16 characters. */
const newGatewayId = () => `gw${randomBytes(10).toString('hex').slice(0, 14)}`;

export function passwordMatches(row: GatewaySettingsRow, password: string): boolean {
  const a = Buffer.from(row.password_hash, 'hex');
  const b = Buffer.from(hashPassword(password), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface SettingsDeps {
  db: Db;
  clock: () => Date;
  allowPrivateNextHop: boolean;
  /** The next hop's addresses (dns.ts): checked when the settings are saved. */
  lookupAddresses: AddressLookup;
  /** Where senders' mail systems connect: `GATEWAY_DOMAIN` and the listener's port. */
  publicName: { domain: string | undefined; port: number };
  /** After a change is committed: the gateway's caches forget what they held. */
  onChange(): void;
  /** Before counts are read: this instance's pending counts are written. */
  flushCounts(): Promise<void>;
}

export function createSettingsService(deps: SettingsDeps) {
  const { db, clock } = deps;

  async function require(orgId: string): Promise<GatewaySettingsRow> {
    const row = await gatewayRepo.find(db, orgId);
    if (!row) throw notFound('Gateway settings');
    return row;
  }

  return {
    find: (orgId: string) => gatewayRepo.find(db, orgId),

    /** Creates or replaces the settings; a new gateway's password is answered this once. */
    async put(ctx: WriteContext, input: SettingsInput): Promise<{ row: GatewaySettingsRow; password: string | undefined }> {
      const allowedNetworks = normalizeNetworks(input.allowedNetworks);
      await checkNextHop(input.nextHop.host, deps.allowPrivateNextHop, deps.lookupAddresses);
      const password = newPassword();
      return db
        .transaction()
        .execute(async (tx) => {
          const { row, created } = await gatewayRepo.upsert(
            tx,
            { orgId: ctx.orgId, nextHop: input.nextHop, allowedNetworks, stampInternal: input.stampInternal, m365TenantId: input.m365TenantId ?? null },
            { gatewayId: newGatewayId(), passwordHash: hashPassword(password) },
          );
          await recordAudit(tx, ctx, {
            action: created ? 'integration.gateway.create' : 'integration.gateway.update',
            targetId: row.gateway_id,
            changes: ['allowedNetworks', 'm365TenantId', 'nextHop', 'stampInternal'],
          });
          return { row, password: created ? password : undefined };
        })
        .finally(deps.onChange);
    },

    async rotatePassword(ctx: WriteContext): Promise<{ row: GatewaySettingsRow; password: string }> {
      const password = newPassword();
      return db
        .transaction()
        .execute(async (tx) => {
          const row = await gatewayRepo.setPassword(tx, ctx.orgId, hashPassword(password));
          if (!row) throw notFound('Gateway settings');
          await recordAudit(tx, ctx, { action: 'integration.gateway.rotate-password', targetId: row.gateway_id, changes: ['password'] });
          return { row, password };
        })
        .finally(deps.onChange);
    },

    /** The settings with today's counts (since midnight UTC) and the routing steps. */
    async status(orgId: string) {
      await deps.flushCounts();
      const row = await require(orgId);
      const counts = await gatewayRepo.countsOf(db, orgId, clock().toISOString().slice(0, 10));
      return { row, counts, routing: routingSteps(smartHostOf(row, deps.publicName.domain), deps.publicName.port) };
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;

/** The name senders' systems connect to: the org's own name under GATEWAY_DOMAIN, when set. */
export function smartHostOf(row: GatewaySettingsRow, domain: string | undefined): string | null {
  return domain ? `${row.gateway_id}.${domain}` : null;
}

/** The steps of docs/gateway.md, with this org's names filled in. */
export function routingSteps(smartHost: string | null, port: number) {
  const host = smartHost ?? '(the gateway host name: set GATEWAY_DOMAIN)';
  return {
    microsoft365: [
      `Exchange admin center → Mail flow → Connectors: add a connector from Office 365 to your organization's email server (type OnPremises), smart host ${host} port ${port}, always use TLS, validate the certificate's domain; choose "only when I have a transport rule set up that redirects messages to this connector".`,
      'Mail flow → Rules: add a rule "Route through the signature gateway": apply if the sender is inside the organization; redirect the message to the connector above; except if the message headers include X-Sigsvc-Stamped (any value). Rules may take up to an hour to apply.',
      "Mail flow → Connectors: add a connector from your organization's email server to Office 365 (type OnPremises), identified by the gateway's IP addresses, for the stamped mail coming back (the Partner type refuses it with 5.7.64).",
      "Set the gateway's m365TenantId (or connect Microsoft Entra ID) so that the X-MS-Exchange-CrossTenant-Id header names your org.",
    ],
    googleWorkspace: [
      `Admin console → Apps → Google Workspace → Gmail → Hosts: add a host "Signature gateway", single host ${host} port ${port}, require secure transport (TLS) and CA-signed certificate.`,
      'Gmail → Routing: add a routing rule for outbound messages: change the route to the host above; except messages with the header X-Sigsvc-Stamped.',
      "Gmail → Routing → SMTP relay service: allow the gateway's IP addresses (require TLS), and set the gateway's nextHop to smtp-relay.gmail.com port 587.",
      'Give the gateway a username and password (this page) or its smart-host name: Google sends every customer from the same ranges, so an address range alone does not name your org.',
    ],
  };
}
