import { z } from 'zod';
import { isoOrNull, iso, nullableTimestamp, timestamp } from '../http/schemas.ts';
import type { GoogleIntegrationRow, DirectoryRunRow, DeploymentState } from '../store/schema.ts';
import { EXAMPLE } from '../http/examples.ts';

const SA = 'signatures@acme-workspace.iam.gserviceaccount.com';

export const googleConnectSchema = z
  .object({
    serviceAccountKey: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'the JSON key file Google issues for the service account (an object with `type: "service_account"`, `client_email`, `private_key`, …); required to connect, optional when changing the settings of a connection',
      ),
    adminEmail: z.email().max(254).describe('a Workspace administrator the directory is read as'),
    syncUsers: z.boolean().default(true).describe("keep the org's users in step with the directory"),
    pushSignatures: z.boolean().default(true).describe("push every user's signature into Gmail"),
  })
  .meta({
    examples: [
      {
        serviceAccountKey: {
          type: 'service_account',
          project_id: 'acme-workspace',
          private_key_id: '1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c',
          private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQ…\n-----END PRIVATE KEY-----\n',
          client_email: SA,
          client_id: '104729384756102938475',
        },
        adminEmail: 'it-admin@acme.example',
        syncUsers: true,
        pushSignatures: true,
      },
    ],
  });

const skippedUser = z.object({ email: z.string(), userId: z.string().nullable(), reason: z.string() });

export const googleIntegrationSchema = z
  .object({
    clientEmail: z.string().describe("the service account's address"),
    clientId: z.string().describe('the client ID to grant domain-wide delegation to'),
    privateKeyId: z.string().describe('which key of the service account is stored (the key itself is never returned)'),
    projectId: z.string(),
    adminEmail: z.string(),
    syncUsers: z.boolean(),
    pushSignatures: z.boolean(),
    scopes: z.array(z.string()).describe('the scopes to grant the client ID in the Admin console'),
    lastSyncAt: nullableTimestamp,
    lastPushAt: nullableTimestamp,
    lastError: z.string().nullable().describe("the last sync's or push's failure, in plain words; cleared by the next success"),
    lastErrorAt: nullableTimestamp,
    counts: z
      .object({ pending: z.number().int(), deployed: z.number().int(), failed: z.number().int(), skipped: z.number().int() })
      .describe("users' Gmail deployments by state"),
    lastSync: z
      .object({
        at: timestamp,
        created: z.number().int(),
        updated: z.number().int(),
        deleted: z.number().int(),
        skipped: z.number().int(),
        skippedUsers: z
          .array(skippedUser)
          .describe('who was skipped and why (`seat_limit`, `email_in_other_org`, `email_in_use`, `duplicate`, `other_directory`, `owner_kept`, `scim`)'),
      })
      .nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'GoogleIntegration',
    examples: [
      {
        clientEmail: SA,
        clientId: '104729384756102938475',
        privateKeyId: '1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c',
        projectId: 'acme-workspace',
        adminEmail: 'it-admin@acme.example',
        syncUsers: true,
        pushSignatures: true,
        scopes: ['https://www.googleapis.com/auth/admin.directory.user.readonly', 'https://www.googleapis.com/auth/gmail.settings.basic'],
        lastSyncAt: EXAMPLE.updatedAt,
        lastPushAt: EXAMPLE.updatedAt,
        lastError: null,
        lastErrorAt: null,
        counts: { pending: 0, deployed: 41, failed: 1, skipped: 2 },
        lastSync: {
          at: EXAMPLE.updatedAt,
          created: 3,
          updated: 1,
          deleted: 0,
          skipped: 1,
          skippedUsers: [{ email: 'new.hire@acme.example', userId: null, reason: 'seat_limit' }],
        },
        createdAt: EXAMPLE.createdAt,
        updatedAt: EXAMPLE.updatedAt,
      },
    ],
  });

export const directoryResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    deleted: z.number().int(),
    skipped: z.number().int(),
    changes: z.array(
      z.object({
        action: z.enum(['create', 'update', 'delete', 'skip']),
        userId: z.string().nullable(),
        email: z.string(),
        fields: z.array(z.string()).optional(),
        reason: z.string().optional(),
      }),
    ),
  })
  .meta({
    id: 'DirectorySyncResult',
    examples: [
      {
        created: 1,
        updated: 1,
        deleted: 0,
        skipped: 1,
        changes: [
          { action: 'create', userId: null, email: 'grace@acme.example' },
          { action: 'update', userId: EXAMPLE.userId, email: 'ada@acme.example', fields: ['title'] },
          { action: 'skip', userId: null, email: 'contractor@other.example', reason: 'email_in_other_org' },
        ],
      },
    ],
  });

export const jobStartedSchema = z.object({ jobId: z.string(), kind: z.string(), state: z.string(), createdAt: timestamp }).meta({
  id: 'JobStarted',
  examples: [{ jobId: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b', kind: 'google.push', state: 'queued', createdAt: EXAMPLE.createdAt }],
});

export const connectionTestSchema = z
  .object({
    ok: z.boolean(),
    steps: z.array(
      z.object({ step: z.enum(['token', 'directory', 'gmail']), ok: z.boolean(), message: z.string().describe('what Google answered, in plain words') }),
    ),
  })
  .meta({
    id: 'GoogleConnectionTest',
    examples: [
      {
        ok: false,
        steps: [
          {
            step: 'token',
            ok: false,
            message:
              "Google refused to act for it-admin@acme.example: domain-wide delegation is not granted to the service account's client ID 104729384756102938475 for the scope https://www.googleapis.com/auth/admin.directory.user.readonly, or it was granted less than 24 hours ago and is not active yet.",
          },
        ],
      },
    ],
  });

export const syncQuery = z.object({
  dryRun: z.enum(['true', 'false']).optional().describe('`true`: answer what a sync would change, and change nothing'),
});

export function presentIntegration(row: GoogleIntegrationRow, counts: Record<DeploymentState, number>, lastRun: DirectoryRunRow | undefined, scopes: string[]) {
  const changes = (lastRun?.changes ?? []) as { action: string; email: string; userId: string | null; reason?: string }[];
  return {
    clientEmail: row.client_email,
    clientId: row.client_id,
    privateKeyId: row.private_key_id,
    projectId: row.project_id,
    adminEmail: row.admin_email,
    syncUsers: row.sync_users,
    pushSignatures: row.push_signatures,
    scopes,
    lastSyncAt: isoOrNull(row.last_sync_at),
    lastPushAt: isoOrNull(row.last_push_at),
    lastError: row.last_error,
    lastErrorAt: isoOrNull(row.last_error_at),
    counts,
    lastSync: lastRun
      ? {
          at: iso(lastRun.finished_at ?? lastRun.started_at),
          created: lastRun.created,
          updated: lastRun.updated,
          deleted: lastRun.deleted,
          skipped: lastRun.skipped,
          skippedUsers: changes
            .filter((c) => c.action === 'skip')
            .slice(0, 200)
            .map((c) => ({ email: c.email, userId: c.userId, reason: c.reason ?? '' })),
        }
      : null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const presentJob = (j: { jobId: string; kind: string; state: string; createdAt: Date }) => ({
  jobId: j.jobId,
  kind: j.kind,
  state: j.state,
  createdAt: iso(j.createdAt),
});
