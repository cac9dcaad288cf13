// Row types of the integrations' tables (directories and their runs, deployments, the Outlook
// add-in), as Kysely sees them; schema.ts lists them in its DB and re-exports them.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, NullableTimestamp, Timestamp } from './columns.ts';

export type DirectorySource = 'google' | 'microsoft' | 'scim';

export interface OutlookAddinsTable {
  org_id: string;
  key_hash: string;
  key_sealed: string;
  key_version: Generated<number>;
  created_at: CreatedAt;
  rotated_at: Timestamp;
  last_fetch_at: NullableTimestamp;
}

export interface DirectoryRunsTable {
  id: string;
  seq: Generated<string>;
  org_id: string;
  source: DirectorySource;
  created: Generated<number>;
  updated: Generated<number>;
  deleted: Generated<number>;
  skipped: Generated<number>;
  changes: ColumnType<unknown[], string | undefined, string>;
  started_at: CreatedAt;
  finished_at: NullableTimestamp;
}

export type DeploymentTarget = 'gmail' | 'outlook';
export type DeploymentState = 'pending' | 'deployed' | 'failed' | 'skipped';

export interface DeploymentsTable {
  org_id: string;
  user_id: string;
  target: DeploymentTarget;
  seq: Generated<string>;
  state: DeploymentState;
  reason: string | null;
  error: string | null;
  content_hash: string | null;
  deployed_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface MicrosoftIntegrationsTable {
  org_id: string;
  tenant_id: string;
  client_id: string;
  sealed_secret: string;
  last_sync_at: NullableTimestamp;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  next_sync_at: Timestamp;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface GoogleIntegrationsTable {
  org_id: string;
  client_email: string;
  client_id: string;
  private_key_id: string;
  project_id: string;
  sealed_private_key: string;
  admin_email: string;
  sync_users: boolean;
  push_signatures: boolean;
  last_sync_at: NullableTimestamp;
  last_push_at: NullableTimestamp;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  next_sync_at: Timestamp;
  changes_seen_at: Timestamp;
  sync_lease_until: NullableTimestamp;
  sync_lease_token: string | null;
  push_lease_until: NullableTimestamp;
  push_lease_token: string | null;
  version: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}
