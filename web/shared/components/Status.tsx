// Loading, error and empty states, shown the same way on every page.
import type { ReactNode } from 'react';
import { errorMessage, ApiError } from '../api/errors.ts';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function ErrorMessage({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  const id = error instanceof ApiError ? error.correlationId : undefined;
  return (
    <div className="alert alert-error" role="alert">
      <p>{errorMessage(error)}</p>
      {id ? <p className="muted small">Reference: {id}</p> : null}
      {children}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
