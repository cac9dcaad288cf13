// Row types of the tables, as Kysely sees them. Kept by hand beside the SQL migrations.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

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
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type OrgRole = 'member' | 'admin' | 'owner';

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
}

export interface StaffTable {
  id: string;
  email: string;
  name: Generated<string>;
  password_hash: string;
  totp_secret: Generated<string | null>;
  totp_pending_secret: Generated<string | null>;
  totp_last_step: Generated<string | null>;
  failed_logins: Generated<number>;
  locked_until: NullableTimestamp;
  failures_since: NullableTimestamp;
  created_at: CreatedAt;
  deleted_at: NullableTimestamp;
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
  /** The body exactly as signed: it may hold what jsonb refuses (NUL, lone surrogates). */
  raw_body: Uint8Array;
  customer_id: string | null;
  correlation_id: string | null;
  attempts: Generated<number>;
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

export type ActorType = 'user' | 'apiKey' | 'staff' | 'paymentProvider' | 'system';

export interface AuditEntriesTable {
  id: Generated<string>;
  org_id: string;
  at: CreatedAt;
  actor_type: ActorType;
  actor_id: string;
  action: string;
  target_id: string | null;
  correlation_id: string | null;
  changes: ColumnType<string[], string[] | undefined, never>;
}

export interface SchemaMigrationsTable {
  version: string;
  applied_at: CreatedAt;
}

export interface DB {
  orgs: OrgsTable;
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
}

export type OrgRow = Selectable<OrgsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditRow = Selectable<AuditEntriesTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
