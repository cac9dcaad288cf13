// One error model for the whole service (docs/guide.md, "Errors"): a closed set of codes, a total mapping to
// HTTP status, and an AppError that keeps what the client sees apart from what goes to the log.
import { UUIDS_IN_TEXT } from './ids.ts';

export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'PAYMENT_REQUIRED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'TOO_MANY_REQUESTS',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function codeToStatus(code: ErrorCode): number {
  switch (code) {
    case 'BAD_REQUEST':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'PAYMENT_REQUIRED':
      return 402;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'PRECONDITION_FAILED':
      return 412;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'TOO_MANY_REQUESTS':
      return 429;
    case 'INTERNAL_ERROR':
      return 500;
    case 'SERVICE_UNAVAILABLE':
      return 503;
  }
}

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** Extra context for the log only; never sent to the client. */
  readonly internal: unknown;

  constructor(code: ErrorCode, message: string, options: { details?: ErrorDetails; internal?: unknown } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.internal = options.internal;
  }

  get status(): number {
    return codeToStatus(this.code);
  }
}

export const badRequest = (message: string, details?: ErrorDetails) => new AppError('BAD_REQUEST', message, { details });
export const unauthorized = (message = 'Missing or invalid credentials.') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message: string, details?: ErrorDetails) => new AppError('FORBIDDEN', message, { details });
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found.`);
export const conflict = (message: string, details?: ErrorDetails) => new AppError('CONFLICT', message, { details });

const ARN = /\barn:aws[a-z-]*:[^\s"',;]*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** Removes ARNs, JWTs and UUIDs from a message meant for clients (docs/api.md, "Errors"). */
export function scrub(message: string): string {
  return message.replace(JWT, '[token]').replace(ARN, '[arn]').replace(UUIDS_IN_TEXT, '[id]');
}
