// An answer that shows a secret once (an API key, a SCIM token, a webhook signing secret): no cache
// may keep it (DECISIONS wave 3, "Secrets stay out of logs": a response that embeds a key is
// `Cache-Control: private, no-store`).
import type { FastifyReply } from 'fastify';

export function secretAnswer(reply: FastifyReply, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'private, no-store');
}
