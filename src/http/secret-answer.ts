// An answer that shows a secret (an API key, a SCIM token, a webhook signing secret, the Outlook
// add-in key, an invitation link, which sets the password of the account it names): no cache may
// keep it (DECISIONS wave 3, "Secrets stay out of logs": a response that embeds a key is
// `Cache-Control: private, no-store`).
import type { FastifyReply } from 'fastify';

export function secretAnswer(reply: FastifyReply, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'private, no-store');
}

/** The same header on an answer that carries a secret only sometimes (a user while invited, without mail). */
export function secretAnswerIf(reply: FastifyReply, carries: boolean): FastifyReply {
  return carries ? reply.header('cache-control', 'private, no-store') : reply;
}
