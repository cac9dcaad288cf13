// One event: its fields, its error, and the payload exactly as the provider signed it.
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import { when } from '../lib/format.ts';
import { useEvent } from './api.ts';

/** The payload indented when it is JSON; as it came otherwise. */
function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

export function EventDialog({ eventId, onClose, onReplay }: { eventId: string | undefined; onClose: () => void; onReplay: (id: string) => void }) {
  const { data, error, loading } = useEvent(eventId);
  const event = data && data.id === eventId ? data : undefined;
  const replayable = event && (event.status === 'failed' || event.status === 'pending');
  return (
    <Dialog
      title={`Event ${eventId ?? ''}`}
      open={eventId !== undefined}
      onClose={onClose}
      wide
      footer={
        <>
          {replayable ? (
            <Button variant="primary" onClick={() => onReplay(event.id)}>
              Replay this event
            </Button>
          ) : null}
          <Button onClick={onClose}>Close</Button>
        </>
      }
    >
      <ErrorMessage error={error} />
      {loading && !event ? <Loading /> : null}
      {event ? (
        <>
          <dl className="facts">
            <div>
              <dt>Type</dt>
              <dd>
                <code>{event.type}</code>
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <StatusPill status={event.status} /> after {event.attempts} attempt{event.attempts === 1 ? '' : 's'}
              </dd>
            </div>
            <div>
              <dt>Created / received</dt>
              <dd>
                {when(event.createdAt)} / {when(event.receivedAt)}
              </dd>
            </div>
            <div>
              <dt>Organisation / customer</dt>
              <dd>
                <code>{event.orgId ?? '—'}</code> / <code>{event.customerId ?? '—'}</code>
              </dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd>{event.outcome ?? '—'}</dd>
            </div>
            <div>
              <dt>Correlation id</dt>
              <dd>
                <code>{event.correlationId ?? '—'}</code>
              </dd>
            </div>
          </dl>
          {event.error ? (
            <div className="alert alert-error">
              <p>{event.error}</p>
              {event.errorCode ? (
                <p className="muted">
                  Code <code>{event.errorCode}</code>
                </p>
              ) : null}
            </div>
          ) : null}
          <h3>Payload</h3>
          <section aria-label="Payload">
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls must be reachable by keyboard (axe: scrollable-region-focusable) */}
            <pre className="code tall" tabIndex={0}>
              {pretty(event.payload)}
            </pre>
          </section>
        </>
      ) : null}
    </Dialog>
  );
}
