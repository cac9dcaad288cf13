// The one place the error envelope `{error: {code, message, details?, correlationId}}` becomes
// what a person reads.
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly correlationId: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, correlationId?: string, details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.correlationId = correlationId;
    this.details = details;
  }

  /** The field the error is about, when the API names one (`details.field`). */
  get field(): string | undefined {
    const f = this.details?.field;
    return typeof f === 'string' ? f : undefined;
  }
}

interface Envelope {
  error?: { code?: string; message?: string; correlationId?: string; details?: Record<string, unknown> };
}

export function apiErrorFrom(status: number, body: unknown): ApiError {
  const e = (body as Envelope | undefined)?.error;
  if (e?.message) return new ApiError(status, e.code ?? 'ERROR', e.message, e.correlationId, e.details);
  return new ApiError(status, 'ERROR', status >= 500 ? 'The service could not answer. Try again in a moment.' : `The request failed (${status}).`);
}

/**
 * What to show beside a form's field when the API refused that field (`details.field`), else
 * nothing. A validation refusal's message starts with the field's name ("body.name: …"), which
 * the form already shows as the field's label, so it is left out.
 */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError) || err.field !== field) return undefined;
  return err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message;
}

/** Whether the API refused one of these fields (the form shows it there, not as a general error). */
export function isFieldError(err: unknown, fields: readonly string[]): boolean {
  return err instanceof ApiError && fields.includes(err.field ?? '');
}

/** What to show for any failure. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof DOMException && err.name === 'TimeoutError') return 'The service took too long to answer. Try again in a moment.';
  if (err instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong.';
}
