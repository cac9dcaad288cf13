import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, parseIfMatch, type VersionCheck } from '../store/conditional.ts';

/** The body's `version` plus the If-Match header's, when sent. */
export function versionCheck(request: FastifyRequest, version: number): VersionCheck {
  const header = request.headers['if-match'];
  return { version, ifMatch: parseIfMatch(typeof header === 'string' ? header : undefined) };
}

export function withEtag<T extends { version: number }>(reply: FastifyReply, resource: T): T {
  reply.header('etag', etagOf(resource.version));
  return resource;
}
