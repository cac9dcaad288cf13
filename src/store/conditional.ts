// Optimistic concurrency (spec: `version`; DECISIONS: If-Match). The update itself is conditional
// in the database; this only tells, after it matched nothing, which answer the client gets.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { AppError, notFound } from '../kernel/errors.ts';

export interface VersionCheck {
  /** The `version` the client sent in the body. */
  version: number;
  /** The version named by an If-Match header, when one was sent. */
  ifMatch?: number | undefined;
}

/** Versions are PostgreSQL integers; a larger number names no version of ours. */
export const MAX_VERSION = 2_147_483_647;

/**
 * The predicate of every conditional update: the row is still at the version the client read,
 * and at the If-Match version when one was sent. An If-Match that names none of our versions
 * matches nothing (and so answers 412 through versionMismatch).
 */
export function atVersion(check: VersionCheck): RawBuilder<SqlBool> {
  if (check.ifMatch === undefined) return sql<SqlBool>`version = ${check.version}`;
  if (!Number.isInteger(check.ifMatch) || check.ifMatch > MAX_VERSION) return sql<SqlBool>`false`;
  return sql<SqlBool>`version = ${check.version} and version = ${check.ifMatch}`;
}

export function versionMismatch(what: string, current: { version: number } | undefined, check: VersionCheck): AppError {
  if (!current) return notFound(what);
  if (check.ifMatch !== undefined && check.ifMatch !== current.version) {
    return new AppError('PRECONDITION_FAILED', `If-Match does not match the current ${what.toLowerCase()}.`, {
      details: { currentVersion: current.version },
    });
  }
  return new AppError('CONFLICT', `${what} has changed: version ${check.version} is not the current version.`, {
    details: { field: 'version', currentVersion: current.version },
  });
}

export const etagOf = (version: number) => `"${version}"`;

/** The version an If-Match header names; undefined when absent or `*`; NaN when it names none of ours. */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^(?:W\/)?"(\d+)"$/.exec(header.trim());
  return match ? Number(match[1]) : Number.NaN;
}
