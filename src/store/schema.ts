// Row types of the tables, as Kysely sees them. Kept by hand beside the SQL migrations.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { ActorType, OrgRole } from '../kernel/principal.ts';

import type { CreatedAt, NullableTimestamp, Timestamp } from './columns.ts';
import type {
  DeploymentsTable,
  DirectoryRunsTable,
  DirectorySource,
  GoogleIntegrationsTable,
  MicrosoftIntegrationsTable,
  OutlookAddinsTable,
} from './schema-integrations.ts';

import type { GatewayCountsTable, GatewayErrorsTable, GatewaySettingsTable, OrgDomainsTable } from './schema-gateway.ts';
import type { OutboundDeliveriesTable, OutboundEndpointsTable, OutboundEventsTable } from './schema-webhooks.ts';
import type { CampaignTables } from './schema-campaigns.ts';
import type { CustomField, PhotoSource } from './schema-profiles.ts';

// The tables of the integrations (directories, deployments, the Outlook add-in) are in
// schema-integrations.ts, the SMTP gateway's in schema-gateway.ts, outbound webhooks' in schema-webhooks.ts.
export type * from './schema-integrations.ts';
export type * from './schema-gateway.ts';
export type * from './schema-webhooks.ts';
export type * from './schema-campaigns.ts';
export type * from './schema-profiles.ts';

export interface OrgsTable {
  id: string;
  name: string;
  subscription_status: Generated<string>;
  plan: Generated<string>;
  price_version: string | null;
  seats: Generated<number>;
  over_seat_limit: Generated<boolean>;
  current_period_end: NullableTimestamp;
  grace_period_ends_at: NullableTimestamp;
  provider_customer_id: string | null;
  provider_subscription_id: Generated<string | null>;
  billing_event_at: NullableTimestamp;
  billing_event_rank: number | null;
  billing_base: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** What signatures show of the org (migration 110); `social` maps a network to its URL. */
  website: Generated<string>;
  address: Generated<string>;
  social: JsonColumn<Record<string, string>>;
  logo_image_id: Generated<string | null>;
  /** The user fields members may change on themselves (src/users/policy: who edits what). */
  self_service_fields: JsonColumn<string[]>;
  click_tracking: Generated<boolean>;
  /** The org's custom fields, and their version (the ETag of `…/fields`). */
  fields: JsonColumn<CustomField[]>;
  fields_version: Generated<number>;
  /** A staff setting: the org's own monthly quota (migration 070); null: the default. */
  quota_per_month: Generated<number | null>;
  /** Staff overrides (migration 072): the effective seats and plan where set; a trial end that keeps the org writable. */
  seats_override: Generated<number | null>;
  plan_override: Generated<string | null>;
  trial_ends_at: NullableTimestamp;
  seq: Generated<string>;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type { ActorType, OrgRole };

export interface UsersTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  email: string;
  name: Generated<string>;
  role: OrgRole;
  title: Generated<string>;
  department: Generated<string>;
  phone: Generated<string>;
  mobile: Generated<string>;
  password_hash: string | null;
  mfa_enabled: Generated<boolean>;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
  totp_secret: Generated<string | null>;
  totp_pending_secret: Generated<string | null>;
  totp_last_step: Generated<string | null>;
  password_must_change: Generated<boolean>;
  failed_logins: Generated<number>;
  locked_until: NullableTimestamp;
  failures_since: NullableTimestamp;
  status: Generated<UserStatus>;
  email_verified: Generated<boolean>;
  /** The directory that created or adopted the user (src/directory/), and the user's id there. */
  directory_source: Generated<DirectorySource | null>;
  directory_id: Generated<string | null>;
  /** Migration 110: more of what a signature shows; `social` and `attributes` are JSON objects. */
  pronouns: Generated<string>;
  website: Generated<string>;
  address: Generated<string>;
  photo_image_id: Generated<string | null>;
  /** Migration 140: who set the photo (a directory sync replaces only its own), the directory's mark of it, when it was last asked. */
  photo_source: Generated<PhotoSource | null>;
  directory_photo_etag: Generated<string | null>;
  directory_photo_checked_at: NullableTimestamp;
  social: JsonColumn<Record<string, string>>;
  attributes: JsonColumn<Record<string, string>>;
}

/** A JSON column: read as the value, written as its JSON text (the driver passes a string through). */
type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** `suspended`: kept, but no sign-in, no seat, no signature (SCIM `active: false`, a directory, an admin). */
export type UserStatus = 'invited' | 'active' | 'suspended';
export type TemplateSource = 'html' | 'design';

export interface StaffTable {
  id: string;
  seq: Generated<string>;
  email: string;
  name: Generated<string>;
  /** Null while the staff member has not accepted their invitation. */
  password_hash: string | null;
  totp_secret: Generated<string | null>;
  totp_pending_secret: Generated<string | null>;
  totp_last_step: Generated<string | null>;
  failed_logins: Generated<number>;
  locked_until: NullableTimestamp;
  failures_since: NullableTimestamp;
  created_at: CreatedAt;
  deleted_at: NullableTimestamp;
  email_verified: Generated<boolean>;
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  account_id: string | null;
  expires_at: Date | null;
  consumed_at: NullableTimestamp;
}

export interface OpensTable {
  org_id: string;
  user_id: string;
  day: ColumnType<string, string, string>;
  real: number;
  proxied: number;
}

export interface WebhookEventsTable {
  id: string;
  type: string;
  created_at: Date | null;
  received_at: Timestamp;
  org_id: string | null;
  seq: Generated<string>;
  status: 'applied' | 'ignored' | 'failed' | 'pending';
  outcome: string | null;
  error: string | null;
  /** The failure's stable code (src/billing/failure.ts); `error` is its sentence for staff. */
  error_code: string | null;
  /** The body exactly as signed: it may hold what jsonb refuses (NUL, lone surrogates). */
  raw_body: Uint8Array;
  customer_id: string | null;
  correlation_id: string | null;
  attempts: Generated<number>;
  state_after: Record<string, unknown> | null; // the org's billing state right after it (migration 136)
}

export interface IdpKeysTable {
  kid: string;
  use: 'signing' | 'cookie';
  material: ColumnType<Record<string, unknown>, string, string>;
  created_at: CreatedAt;
  retired_at: NullableTimestamp;
}

export interface TemplatesTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  name: string;
  html: string;
  text: string;
  html_prepared: string;
  /** The design document the html and text were compiled from (migration 110), kept as history when `source` is `html`. */
  design: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  source: Generated<TemplateSource>;
  is_default: Generated<boolean>;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface AuditEntriesTable {
  id: Generated<string>;
  /** Null for a staff action that concerns no org. */
  org_id: string | null;
  at: CreatedAt;
  actor_type: ActorType;
  actor_id: string;
  action: string;
  target_id: string | null;
  correlation_id: string | null;
  changes: ColumnType<string[], string[] | undefined, never>;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobsTable {
  id: string;
  kind: string;
  org_id: string | null;
  payload: ColumnType<unknown, string, string>;
  state: Generated<JobState>;
  attempts: Generated<number>;
  run_after: ColumnType<Date, Date | string | undefined, Date | string>;
  lease_until: NullableTimestamp;
  lease_token: string | null;
  progress_done: number | null;
  progress_total: number | null;
  error: string | null;
  dedupe_key: string | null;
  created_at: CreatedAt;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export type TokenPurpose = 'invitation' | 'password_reset';

export interface AccountTokensTable {
  id: string;
  purpose: TokenPurpose;
  account_kind: 'user' | 'staff';
  account_id: string;
  org_id: string | null;
  email: string;
  token_hash: string;
  link_token: string | null;
  expires_at: Date;
  used_at: NullableTimestamp;
  voided_at: NullableTimestamp;
  created_at: CreatedAt;
}

export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/gif';

/** 'upload': POST …/images; 'photo': a user's photo (migration 146), deleted once replaced and unused. */
export type ImageOrigin = 'upload' | 'photo';
export interface ImagesTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  content_type: ImageContentType;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  /** The bytes on a PostgreSQL server; null in the embedded store (files, src/images/files.ts) and once deleted. */
  data: Uint8Array | null;
  origin: ColumnType<ImageOrigin, ImageOrigin | undefined, never>;
  created_at: CreatedAt;
  deleted_at: NullableTimestamp;
}

export interface SchemaMigrationsTable {
  version: string;
  applied_at: CreatedAt;
}

/** Live users per org, kept by triggers on users (migration 042): the seat check reads it. */
export interface OrgLiveUsersTable {
  org_id: string;
  live: number;
}

export interface ScimTokensTable {
  org_id: string;
  token_hash: string;
  created_at: Timestamp;
  last_request_at: NullableTimestamp;
}

export interface ScimGroupsTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  display_name: string;
  external_id: string | null;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ScimGroupMembersTable {
  group_id: string;
  user_id: string;
  org_id: string;
}

/** API-key requests per org and calendar month, added in batches (migration 070, src/quota/). */
export interface OrgUsageTable {
  org_id: string;
  month: string;
  requests: ColumnType<string, number | string, number | string>;
}

/** Mails per org and hour, invitation resends per user and hour (migration 071, src/mail/caps.ts). */
export interface MailCountsTable {
  kind: 'org' | 'resend';
  subject_id: string;
  hour: ColumnType<Date, Date | string, Date | string>;
  count: number;
}

/** When each org's job was last claimed (migration 073): the fair queue's turns. */
export interface JobTurnsTable {
  org_key: string;
  claimed_at: Date;
}

export interface DB extends CampaignTables {
  job_turns: JobTurnsTable;
  org_usage: OrgUsageTable;
  mail_counts: MailCountsTable;
  orgs: OrgsTable;
  org_live_users: OrgLiveUsersTable;
  users: UsersTable;
  templates: TemplatesTable;
  api_keys: ApiKeysTable;
  audit_entries: AuditEntriesTable;
  schema_migrations: SchemaMigrationsTable;
  staff: StaffTable;
  oidc_payloads: OidcPayloadsTable;
  idp_keys: IdpKeysTable;
  webhook_events: WebhookEventsTable;
  opens: OpensTable;
  outlook_addins: OutlookAddinsTable;
  microsoft_integrations: MicrosoftIntegrationsTable;
  jobs: JobsTable;
  account_tokens: AccountTokensTable;
  images: ImagesTable;
  directory_runs: DirectoryRunsTable;
  deployments: DeploymentsTable;
  google_integrations: GoogleIntegrationsTable;
  outbound_endpoints: OutboundEndpointsTable;
  outbound_events: OutboundEventsTable;
  outbound_deliveries: OutboundDeliveriesTable;
  scim_tokens: ScimTokensTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  org_domains: OrgDomainsTable;
  gateway_settings: GatewaySettingsTable;
  gateway_counts: GatewayCountsTable;
  gateway_errors: GatewayErrorsTable;
}

export type OrgRow = Selectable<OrgsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditRow = Selectable<AuditEntriesTable>;
export type StaffRow = Selectable<StaffTable>;
export type ImageRow = Selectable<ImagesTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type OutlookAddinRow = Selectable<OutlookAddinsTable>;
export type JobRow = Selectable<JobsTable>;
export type AccountTokenRow = Selectable<AccountTokensTable>;
export type DirectoryRunRow = Selectable<DirectoryRunsTable>;
export type DeploymentRow = Selectable<DeploymentsTable>;
export type MicrosoftIntegrationRow = Selectable<MicrosoftIntegrationsTable>;
export type GoogleIntegrationRow = Selectable<GoogleIntegrationsTable>;
export type ScimGroupRow = Selectable<ScimGroupsTable>;
export type OrgDomainRow = Selectable<OrgDomainsTable>;
export type GatewaySettingsRow = Selectable<GatewaySettingsTable>;
export type GatewayErrorRow = Selectable<GatewayErrorsTable>;

/** The users list's orders: `created` (oldest first, the default) or a column, `-` for descending. */
export const USER_SORTS = ['created', 'name', '-name', 'role', '-role', 'department', '-department', 'status', '-status'] as const;
export type UserSort = (typeof USER_SORTS)[number];
