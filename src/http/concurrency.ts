// Conditional requests (docs/guide.md, "Organisations": a PATCH sends `version`, a mismatch is 409, a
// stale If-Match 412). The store's update is conditional on both (src/store/conditional.ts); the
// header's syntax, the ETag and the choice between 412 and 409 are HTTP's, and live here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.ts';
import type { VersionCheck, VersionConflict } from '../store/conditional.ts';

export const etagOf = (version: number) => `"${version}"`;

/** The version an If-Match header names; undefined when absent or `*`; NaN when it names none of ours. */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^(?:W\/)?"(\d+)"$/.exec(header.trim());
  return match ? Number(match[1]) : Number.NaN;
}

/** The body's `version` plus the If-Match header's, when sent. */
export function versionCheck(request: FastifyRequest, version: number): VersionCheck {
  const header = request.headers['if-match'];
  return { version, ifMatch: parseIfMatch(typeof header === 'string' ? header : undefined) };
}

export function withEtag<T extends { version: number }>(reply: FastifyReply, resource: T): T {
  reply.header('etag', etagOf(resource.version));
  return resource;
}

/**
 * The answer to a versioned update that found the resource at another version: 412 when an
 * If-Match was sent and names another version than the current one (the precondition failed),
 * otherwise the 409 of a stale body `version`.
 */
export function conflictAnswer(conflict: VersionConflict): AppError {
  const { ifMatch } = conflict.check;
  if (ifMatch !== undefined && ifMatch !== conflict.currentVersion) {
    return new AppError('PRECONDITION_FAILED', `If-Match does not match the current ${conflict.what.toLowerCase()}.`, {
      details: { currentVersion: conflict.currentVersion },
    });
  }
  return conflict;
}
