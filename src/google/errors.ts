// What Google answered, in plain words for the org's admins, and whether trying again may help.
// Google's error bodies: the token endpoint answers `{error, error_description}` (RFC 6749); the
// Directory and Gmail APIs answer `{error: {code, message, status, errors: [{reason, message}]}}`.
import { ConnectorError } from '../directory/module.ts';

export const SCOPES = {
  directory: 'https://www.googleapis.com/auth/admin.directory.user.readonly',
  gmail: 'https://www.googleapis.com/auth/gmail.settings.basic',
} as const;

export type GoogleErrorKind =
  /** Delegation missing or not yet active, or a scope not granted (token endpoint 401 unauthorized_client). */
  | 'delegation'
  /** The address acted for is not a user of the Workspace (token endpoint invalid_grant). */
  | 'unknown_user'
  /** The key was deleted or disabled in Google Cloud (invalid_grant on the signature). */
  | 'key_invalid'
  /** Gmail is not enabled for the user (no licence): 400 failedPrecondition "Mail service not enabled". */
  | 'mail_disabled'
  /** The acted-for address may not read the directory (not an admin), or the API is off in the project. */
  | 'forbidden'
  /** Over Gmail's 10,000 characters (400 invalidArgument). */
  | 'too_long'
  /** 429 or 5xx after the client's own retries: the job tries again later. */
  | 'transient'
  /** Anything else Google refused. */
  | 'other';

/** Google's refusal: a ConnectorError whose `transient` kind is worth another try later. */
export class GoogleError extends ConnectorError {
  declare readonly kind: GoogleErrorKind;
  constructor(kind: GoogleErrorKind, message: string, options: { status?: number; retryAfterMs?: number | undefined; cause?: unknown } = {}) {
    super('google', kind, message, { ...options, retryable: kind === 'transient' });
    this.name = 'GoogleError';
  }
}

const ADMIN_CONSOLE_DWD = 'Google Admin console → Security → Access and data control → API controls → Domain-wide delegation';

/** The token endpoint's refusal, for a subject and scope. */
export function tokenError(
  status: number,
  body: { error?: string; error_description?: string },
  ctx: { clientId: string; subject: string; scope: string },
): GoogleError {
  const said = body.error_description ? ` (Google said: "${body.error_description}")` : '';
  if (body.error === 'unauthorized_client') {
    return new GoogleError(
      'delegation',
      `Google refused to act for ${ctx.subject}: domain-wide delegation is not granted to the service account's client ID ${ctx.clientId} for the scope ${ctx.scope}, or it was granted less than 24 hours ago and is not active yet. Grant it in the ${ADMIN_CONSOLE_DWD}.${said}`,
      { status },
    );
  }
  if (body.error === 'invalid_grant' && /signature/i.test(body.error_description ?? '')) {
    return new GoogleError(
      'key_invalid',
      `Google did not accept the service account key: it was deleted or disabled in Google Cloud. Upload a current key.${said}`,
      { status },
    );
  }
  if (body.error === 'invalid_grant') {
    return new GoogleError('unknown_user', `Google knows no Workspace user ${ctx.subject} (or the account is suspended).${said}`, { status });
  }
  return new GoogleError('other', `Google's token endpoint answered ${status}${body.error ? ` ${body.error}` : ''}.${said}`, { status });
}

interface ApiErrorBody {
  error?: { code?: number; message?: string; status?: string; errors?: { reason?: string; message?: string }[] };
}

/** A Directory or Gmail API refusal. */
export function apiError(status: number, body: ApiErrorBody, ctx: { api: 'directory' | 'gmail'; subject: string }): GoogleError {
  const message = body.error?.message ?? '';
  const reason = body.error?.errors?.[0]?.reason ?? body.error?.status ?? '';
  const said = message ? ` (Google said: "${message}")` : '';
  if (status === 400 && /mail service not enabled/i.test(message)) {
    return new GoogleError(
      'mail_disabled',
      `Gmail is not enabled for ${ctx.subject} (the user has no Gmail licence, or Gmail is off for their organisational unit).`,
      { status },
    );
  }
  if (status === 400 && /maximum length/i.test(message)) {
    return new GoogleError('too_long', `The signature is longer than Gmail's 10,000 characters.${said}`, { status });
  }
  if (status === 403 && /accessNotConfigured|SERVICE_DISABLED|has not been used|is disabled/i.test(`${reason} ${message}`)) {
    const which = ctx.api === 'gmail' ? 'Gmail API' : 'Admin SDK API';
    return new GoogleError(
      'forbidden',
      `The ${which} is not enabled in the service account's Google Cloud project: enable it in the Cloud console (APIs & Services).${said}`,
      { status },
    );
  }
  if (status === 403 || status === 401) {
    const who =
      ctx.api === 'directory'
        ? `${ctx.subject} may not read the directory: the admin address must belong to a Workspace administrator with the Users read privilege.`
        : `Google refused to change the signature of ${ctx.subject}.`;
    return new GoogleError('forbidden', `${who}${said}`, { status });
  }
  if (status === 404 && ctx.api === 'gmail') {
    return new GoogleError('unknown_user', `Gmail knows no send-as address ${ctx.subject}.${said}`, { status });
  }
  return new GoogleError('other', `Google's ${ctx.api === 'gmail' ? 'Gmail' : 'Directory'} API answered ${status}${reason ? ` ${reason}` : ''}.${said}`, {
    status,
  });
}
