import type { FastifyReply, FastifyRequest } from 'fastify';

/** The one log line per request (info level), labelled with the correlation id by the request's logger. */
export function logCompleted(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
}
