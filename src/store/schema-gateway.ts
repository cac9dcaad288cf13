// The SMTP signature gateway's tables (src/gateway/): sender domains, settings, today's counts
// and the failures staff look at. Re-exported by schema.ts, whose DB lists them.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, NullableTimestamp, Timestamp } from './columns.ts';

/** A sender domain of an org (src/gateway/domains.ts); `verified_by` is `dns` or `staff`. */
export interface OrgDomainsTable {
  org_id: string;
  domain: string;
  token: string;
  verified_at: NullableTimestamp;
  verified_by: string | null;
  created_at: CreatedAt;
}

/** One allowed network of a gateway: `shared` ranges (a provider's) never name the org alone. */
export interface AllowedNetwork {
  cidr: string;
  shared: boolean;
}

export interface GatewaySettingsTable {
  org_id: string;
  gateway_id: string;
  password_hash: string;
  next_hop_host: string;
  next_hop_port: number;
  next_hop_secure: boolean;
  allowed_networks: ColumnType<AllowedNetwork[], string, string>;
  stamp_internal: boolean;
  m365_tenant_id: string | null;
  last_message_at: NullableTimestamp;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type GatewayOutcome = 'stamped' | 'passed' | 'refused' | 'failed';

export interface GatewayCountsTable {
  org_id: string;
  day: string;
  outcome: GatewayOutcome;
  count: number;
}

export interface GatewayErrorsTable {
  seq: Generated<string>;
  org_id: string | null;
  at: Date | string;
  outcome: GatewayOutcome;
  reason: string;
  correlation_id: string;
  client_address: string | null;
  sender: string | null;
}
