// What staff read about a payment event that failed: a stable code and a sentence meant for them.
// The driver's own text (`duplicate key value violates unique constraint …`) says nothing useful to
// a person in the staff app and names the schema; it goes to the log, under the event's id and
// correlation id, and the stored event keeps only what this module says.
import { classifyDatabaseError, DatabaseUnavailableError, isUniqueViolation } from '../store/errors.ts';
import { EventDataError } from './event.ts';

/** Stable: clients may branch on them (the staff API's `errorCode`). */
export const EVENT_FAILURE_CODES = [
  'EVENT_DATA',
  'EVENT_UNREADABLE',
  'NO_ORG',
  'REPLAYED_CONCURRENTLY',
  'CUSTOMER_TAKEN',
  'CONFLICT',
  'DATABASE_REFUSED',
  'DATABASE_UNAVAILABLE',
  'INTERNAL',
] as const;
export type EventFailureCode = (typeof EVENT_FAILURE_CODES)[number];

/** A failure whose message is already written for staff. */
export class EventFailure extends Error {
  readonly code: EventFailureCode;
  constructor(code: EventFailureCode, message: string) {
    super(message);
    this.name = 'EventFailure';
    this.code = code;
  }
}

const KEPT = "The event is kept for replay; the service log has the details under the event's id.";

/** The code and the staff-facing sentence for any error that failed an event. */
export function describeFailure(err: unknown): { code: EventFailureCode; message: string } {
  if (err instanceof EventFailure) return { code: err.code, message: err.message };
  if (err instanceof EventDataError) return { code: 'EVENT_DATA', message: err.message };
  if (err instanceof DatabaseUnavailableError || classifyDatabaseError(err)) {
    return { code: 'DATABASE_UNAVAILABLE', message: `The database was unavailable while the event was applied. ${KEPT}` };
  }
  if (isUniqueViolation(err, 'orgs_provider_customer_id_key')) {
    return {
      code: 'CUSTOMER_TAKEN',
      message: `The event links a payment customer that another organisation already has (each organisation has its own). Replay it once that organisation has moved to another customer; the service log has the details under the event's id.`,
    };
  }
  const sqlState = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (sqlState === '23505') {
    return { code: 'CONFLICT', message: `The event conflicts with data the service already holds (a value that must be unique). ${KEPT}` };
  }
  if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState)) {
    return { code: 'DATABASE_REFUSED', message: `The database refused the change the event makes. ${KEPT}` };
  }
  return { code: 'INTERNAL', message: `The event could not be applied because of an internal error. ${KEPT}` };
}
