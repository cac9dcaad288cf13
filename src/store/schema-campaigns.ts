// Rules, campaigns and clicks (src/rules/, src/campaigns/, src/clicks/): migrations 130 to 135.
// Re-exported by schema.ts, whose DB lists them.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTimestamp, Timestamp } from './columns.ts';
import type { OrgRole } from './schema.ts';

/** A JSON column: read as the value, written as its JSON text. */
type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** What a rule asks of a user (`when`): every condition given must hold (migration 130). */
export interface RuleWhen {
  departments?: string[];
  roles?: OrgRole[];
  userIds?: string[];
  groups?: string[];
  attributes?: Record<string, string>;
  emailDomains?: string[];
}

export interface StoredRule {
  ruleId: string;
  name: string;
  when: RuleWhen;
  templateId: string;
  replyTemplateId?: string | undefined;
}

/** An org's assignment rules, in order, with the version their ETag names (migration 130). */
export interface OrgRulesTable {
  org_id: string;
  rules: JsonColumn<StoredRule[]>;
  version: Generated<number>;
  updated_at: Generated<Date>;
}
export type OrgRulesRow = Selectable<OrgRulesTable>;

/** One banner of a campaign; `weight` 0 pauses it (migration 131). */
export interface CampaignVariant {
  imageId: string;
  link: string;
  alt: string;
  weight: number;
}

export interface CampaignUtm {
  source: string;
  medium: string;
  campaign: string;
}

export interface CampaignsTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  name: string;
  starts_at: Timestamp;
  ends_at: NullableTimestamp;
  audience: JsonColumn<RuleWhen>;
  variants: JsonColumn<CampaignVariant[]>;
  utm: ColumnType<CampaignUtm | null, string | null | undefined, string | null>;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
  /** The status its outbound webhook events last announced (migration 135; src/campaigns/announce.ts). */
  announced_status: Generated<'scheduled' | 'active' | 'ended'>;
}
export type CampaignRow = Selectable<CampaignsTable>;

/** A click on a tracked link (migration 132). */
export interface ClicksTable {
  id: Generated<string>;
  org_id: string;
  campaign_id: string | null;
  variant: number | null;
  user_id: string;
  destination: string;
  at: Timestamp;
  address: string;
  user_agent: Generated<string>;
  suspected_bot: boolean;
  bot_reason: string | null;
}

/** Banners served, per campaign, variant and UTC day (migration 133). */
export interface CampaignImpressionsTable {
  org_id: string;
  campaign_id: string;
  variant: number;
  day: ColumnType<string, string, string>;
  count: ColumnType<string, number | undefined, number>;
}

/** These tables, as schema.ts's DB lists them. */
export interface CampaignTables {
  org_rules: OrgRulesTable;
  campaigns: CampaignsTable;
  clicks: ClicksTable;
  campaign_impressions: CampaignImpressionsTable;
}
