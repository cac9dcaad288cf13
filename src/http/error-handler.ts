// The one place that turns any failure into the error envelope (docs/guide.md, "Errors").
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, codeToStatus, scrub, type ErrorCode, type ErrorDetails } from '../kernel/errors.ts';
import { CORRELATION_HEADER } from './correlation.ts';
import { DatabaseUnavailableError } from '../store/errors.ts';
import { VersionConflict } from '../store/conditional.ts';
import { conflictAnswer } from './concurrency.ts';
import { answerAndLinger, bodyLeftUnread, lingerLimits } from './lingering-close.ts';

// How long a client should wait after a 503 for a database that is away: long enough not to hammer
// a server that is failing over, short enough that a restart of a few seconds is hardly noticed.
export const DATABASE_RETRY_AFTER_S = 5;

function envelope(request: FastifyRequest, err: AppError) {
  return {
    error: {
      code: err.code,
      message: scrub(err.message),
      ...(err.details ? { details: err.details } : {}),
      correlationId: request.id,
    },
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  return reply.code(err.status).header(CORRELATION_HEADER, request.id).type('application/json').send(envelope(request, err));
}

/** Answers a refused URL in a scope's own error shape (400, and a message). */
export type FrameworkErrorAnswer = (request: FastifyRequest, reply: FastifyReply, message: string) => void;
// The scopes that answer errors in a shape of their own (SCIM's under /scim/v2: scim/routes.ts).
// Fastify raises these errors before routing, so no scope's error handler sees them; a scope names
// its path prefix here when it is registered (the same answer for every server of the process).
const frameworkAnswers = new Map<string, FrameworkErrorAnswer>();

/** URLs under `prefix` (the prefix itself, `prefix/…`, `prefix?…`) get `answer` for a URL refused before routing. */
export function answerFrameworkErrorsUnder(prefix: string, answer: FrameworkErrorAnswer): void {
  frameworkAnswers.set(prefix, answer);
}

/**
 * Errors Fastify raises before routing (Fastify's `frameworkErrors`): a path segment that cannot be
 * percent-decoded, or one longer than the router's 100 characters. Without this they would answer
 * Fastify's own body (and 414), outside the envelope.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is longer than 100 characters.' : 'The URL is not valid: a path segment cannot be decoded.';
  const url = request.raw.url ?? '';
  const scoped = [...frameworkAnswers].find(([prefix]) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`));
  if (scoped) {
    scoped[1](request, reply, message);
    return;
  }
  sendError(request, reply, new AppError('BAD_REQUEST', message, { details: { field: 'params' }, internal: error.code }));
}

export function installErrorHandling(app: FastifyInstance, limits: { bodyLimitBytes: number }): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A route may set a smaller body limit of its own (images, the users import): name that one.
    const appError = toAppError(error, { bodyLimitBytes: request.routeOptions.bodyLimit ?? limits.bodyLimitBytes });
    const retryAfterS = appError.details?.retryAfterS;
    if (typeof retryAfterS === 'number') reply.header('retry-after', retryAfterS);
    if (appError.status >= 500) {
      request.log.error({ err: error, internal: appError.internal }, 'request failed');
    } else if (appError.internal) {
      request.log.info({ internal: appError.internal, code: appError.code }, 'request refused');
    }
    // A body refused for its size while it is still arriving: answer, then read the rest for a while.
    if (bodyLeftUnread(request.raw, error.code)) {
      reply.header(CORRELATION_HEADER, request.id);
      answerAndLinger(request, reply, appError.status, envelope(request, appError), lingerLimits(limits.bodyLimitBytes));
      return;
    }
    sendError(request, reply, appError);
  });
}

function toAppError(error: FastifyError, limits: { bodyLimitBytes: number }): AppError {
  if (error instanceof VersionConflict) return conflictAnswer(error);
  if (error instanceof AppError) return error;

  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'request';
    const issues = error.validation.map((v) => ({
      field: fieldName(where, v.instancePath, unknownKey(v)),
      message: v.message ?? 'is invalid',
    }));
    const first = issues[0];
    return new AppError('BAD_REQUEST', first ? `${first.field}: ${first.message}` : 'The request is invalid.', {
      details: { field: first?.field, issues } satisfies ErrorDetails,
    });
  }

  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limits.bodyLimitBytes} bytes.`, {
        details: { limitBytes: limits.bodyLimitBytes },
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('BAD_REQUEST', 'Unsupported Content-Type: this route takes application/json (or the types its documentation names).', {
        details: { field: 'content-type' },
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The body is empty but Content-Type says JSON.', { details: { field: 'body' } });
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('BAD_REQUEST', 'The body is not valid JSON.', { details: { field: 'body' } });
  }

  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    const what = unavailable.reason === 'timeout' ? 'did not answer in time' : 'is unreachable';
    return new AppError('SERVICE_UNAVAILABLE', `The database ${what}; retry in ${DATABASE_RETRY_AFTER_S} seconds.`, {
      details: { retryAfterS: DATABASE_RETRY_AFTER_S },
      internal: error,
    });
  }

  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(clientCode(status), error.message || 'The request was refused.', { internal: error.code });
  }
  // Unexpected: the client gets a generic message, the log gets everything (never err.message here).
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred. Quote the correlation id when reporting it.', {
    internal: error,
  });
}

function clientCode(status: number): ErrorCode {
  const known: ErrorCode[] = [
    'UNAUTHORIZED',
    'PAYMENT_REQUIRED',
    'FORBIDDEN',
    'NOT_FOUND',
    'CONFLICT',
    'PRECONDITION_FAILED',
    'PAYLOAD_TOO_LARGE',
    'TOO_MANY_REQUESTS',
  ];
  return known.find((c) => codeToStatus(c) === status) ?? 'BAD_REQUEST';
}

/** An object's unknown field, which zod reports at the object: the field is named, not its parent. */
function unknownKey(v: { keyword?: string; params?: Record<string, unknown> }): string | undefined {
  const keys = v.keyword === 'unrecognized_keys' ? v.params?.keys : undefined;
  return Array.isArray(keys) && typeof keys[0] === 'string' ? keys[0] : undefined;
}

function fieldName(where: string, instancePath: string, key?: string): string {
  const path = [instancePath.replace(/^\//, '').replaceAll('/', '.'), key].filter(Boolean).join('.');
  const prefix = where === 'querystring' ? 'query' : where;
  return path ? `${prefix}.${path}` : prefix;
}

/** The database failure behind an error, if any (services may wrap it as a cause). */
function databaseUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DatabaseUnavailableError) return e;
  }
  return undefined;
}
