// Optimistic concurrency (`version` and If-Match: docs/guide.md, "Organisations"). The update itself
// is conditional in the database; after it matched nothing, the caller tells a row that is gone from
// one that has moved on. Which answer a client of the API gets for the latter (409, or 412 for a
// stale If-Match) is the HTTP layer's choice (src/http/concurrency.ts).
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
 * matches nothing.
 */
export function atVersion(check: VersionCheck): RawBuilder<SqlBool> {
  if (check.ifMatch === undefined) return sql<SqlBool>`version = ${check.version}`;
  if (!Number.isInteger(check.ifMatch) || check.ifMatch > MAX_VERSION) return sql<SqlBool>`false`;
  return sql<SqlBool>`version = ${check.version} and version = ${check.ifMatch}`;
}

/** A versioned update found the row at another version than the one it was asked for. */
export class VersionConflict extends AppError {
  readonly what: string;
  readonly currentVersion: number;
  readonly check: VersionCheck;

  constructor(what: string, currentVersion: number, check: VersionCheck) {
    super('CONFLICT', `${what} has changed: version ${check.version} is not the current version.`, {
      details: { field: 'version', currentVersion },
    });
    this.what = what;
    this.currentVersion = currentVersion;
    this.check = check;
  }
}

/** Why a versioned update matched nothing: the row is gone, or it is at another version. */
export function versionMismatch(what: string, current: { version: number } | undefined, check: VersionCheck): AppError {
  if (!current) return notFound(what);
  return new VersionConflict(what, current.version, check);
}
