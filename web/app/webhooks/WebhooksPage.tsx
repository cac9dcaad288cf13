// Webhooks (admins): the org's endpoints with their event types and state; adding one (its signing
// secret shown once, with a copy button), rotating the secret (the old one keeps signing for 24 h),
// sending a test event, disabling, enabling and deleting; and an endpoint's delivery log with each
// attempt's status, error and answer, and redelivery (docs/webhooks.md).
import { maxLengthOf } from '../../shared/api/field-limits.ts';
import { useState, type FormEvent } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog, Dialog } from '../../shared/components/Dialog.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { ListTable, actionsColumn } from '../../shared/components/ListTable.tsx';
import { fieldError } from '../../shared/api/errors.ts';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import type { Schemas } from '../../shared/api/types.ts';
import { EVENT_TYPES, useDeliveries, useEndpoints, useWebhookActions, type EventType } from './api.ts';
import './webhooks.css';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : null);

export default function WebhooksPage() {
  const pager = usePager();
  const endpoints = useEndpoints({ limit: 50, ...(pager.cursor ? { cursor: pager.cursor } : {}) });
  const actions = useWebhookActions();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ title: string; secret: string; note: string } | null>(null);
  const [selected, setSelected] = useState<Endpoint | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'rotate' | 'delete'; endpoint: Endpoint } | null>(null);
  const act = useMutation(async (what: () => Promise<void>) => what());

  const confirmed = useMutation(async () => {
    if (!confirm) return;
    const { kind, endpoint } = confirm;
    if (kind === 'rotate') {
      const rotated = await actions.rotate(endpoint.endpointId);
      setSecret({
        title: 'The new signing secret',
        secret: rotated.secret,
        note: `The previous secret keeps signing beside it until ${when(rotated.previousSecretExpiresAt)}.`,
      });
    } else {
      await actions.remove(endpoint.endpointId);
      if (selected?.endpointId === endpoint.endpointId) setSelected(null);
      notices.show({ kind: 'success', text: `Endpoint ${endpoint.url} deleted.` });
    }
    setConfirm(null);
  });

  return (
    <section className="page webhooks">
      <PageHeader
        title="Webhooks"
        actions={
          <Button variant="primary" onClick={() => setAdding(true)}>
            Add endpoint
          </Button>
        }
      >
        The service POSTs events to your endpoints as they happen, signed the Standard Webhooks way: verify them with the <code>standardwebhooks</code> library
        and your endpoint's secret. Failed deliveries are retried for about a day and a half; an endpoint that fails for 3 days is disabled.
      </PageHeader>

      <ErrorMessage error={act.error} />
      <ListTable
        items={endpoints.data?.items}
        loading={endpoints.loading}
        error={endpoints.error}
        label="Webhook endpoints"
        empty={pager.page === 1 ? 'No endpoints yet.' : undefined}
        columns={['URL', 'Events', 'Status', actionsColumn]}
        row={(e) => (
          <tr key={e.endpointId} aria-selected={selected?.endpointId === e.endpointId || undefined}>
            <td>
              <code className="webhook-url">{e.url}</code>
              {e.description ? <div className="muted">{e.description}</div> : null}
            </td>
            <td>
              <ul className="event-list">
                {e.events.map((t) => (
                  <li key={t}>
                    <code>{t}</code>
                  </li>
                ))}
              </ul>
            </td>
            <td>
              {e.disabled ? (
                <>
                  <span className="pill pill-warning">Disabled</span>
                  <div className="muted small">{e.disabledReason}</div>
                </>
              ) : (
                <span className="pill pill-success">Active</span>
              )}
              {e.previousSecretExpiresAt ? <div className="muted small">Old secret signs until {when(e.previousSecretExpiresAt)}</div> : null}
            </td>
            <td className="cell-actions webhook-actions">
              <Button className="btn-small" onClick={() => setSelected(e)} aria-label={`Deliveries of ${e.url}`}>
                Deliveries
              </Button>
              <Button
                className="btn-small"
                aria-label={`Send test to ${e.url}`}
                onClick={() =>
                  void act.run(async () => {
                    await actions.sendTest(e.endpointId);
                    setSelected(e);
                    notices.show({ kind: 'success', text: 'Test event queued: it shows in the deliveries below.' });
                  })
                }
              >
                Send test
              </Button>
              <Button className="btn-small" onClick={() => setConfirm({ kind: 'rotate', endpoint: e })} aria-label={`Rotate secret of ${e.url}`}>
                Rotate secret
              </Button>
              <Button
                className="btn-small"
                aria-label={`${e.disabled ? 'Enable' : 'Disable'} ${e.url}`}
                onClick={() => void act.run(() => actions.setDisabled(e.endpointId, e.version, !e.disabled))}
              >
                {e.disabled ? 'Enable' : 'Disable'}
              </Button>
              <Button variant="danger" className="btn-small" onClick={() => setConfirm({ kind: 'delete', endpoint: e })} aria-label={`Delete ${e.url}`}>
                Delete
              </Button>
            </td>
          </tr>
        )}
      />
      <Pager pager={pager} nextCursor={endpoints.data?.nextCursor} />

      {selected ? <DeliveryLog endpoint={selected} /> : null}

      <AddDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(created) => {
          setAdding(false);
          setSecret({ title: 'Your endpoint’s signing secret', secret: created.secret, note: `Endpoint ${created.url} added.` });
        }}
      />
      <Dialog
        title={secret?.title ?? ''}
        open={secret !== null}
        onClose={() => setSecret(null)}
        footer={
          <Button variant="primary" onClick={() => setSecret(null)}>
            I have stored the secret
          </Button>
        }
      >
        {secret ? (
          <>
            <div className="alert alert-warning" role="alert">
              <p>
                <strong>Copy this secret now: it is shown only once.</strong> Your receiver needs it to verify deliveries. If you lose it, rotate it.
              </p>
            </div>
            <p>{secret.note}</p>
            <TextField label="Signing secret" value={secret.secret} readOnly onFocus={(e) => e.currentTarget.select()} className="mono" />
            <CopyButton label="Copy secret" text={secret.secret} variant="primary" />
          </>
        ) : null}
      </Dialog>
      <ConfirmDialog
        title={confirm?.kind === 'rotate' ? 'Rotate this secret?' : 'Delete this endpoint?'}
        open={confirm !== null}
        confirmLabel={confirm?.kind === 'rotate' ? 'Rotate secret' : 'Delete endpoint'}
        pending={confirmed.pending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => void confirmed.run()}
      >
        {confirm?.kind === 'rotate' ? (
          <p>
            A new secret is made and shown once. For 24 hours every delivery to <code>{confirm.endpoint.url}</code> is signed with both, so you can switch your
            receiver over without missing one.
          </p>
        ) : (
          <p>
            Deliveries to <code>{confirm?.endpoint.url}</code> stop, pending ones included. This cannot be undone.
          </p>
        )}
        <ErrorMessage error={confirmed.error} />
      </ConfirmDialog>
    </section>
  );
}

function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const pager = usePager();
  const deliveries = useDeliveries(endpoint.endpointId, { limit: 20, ...(pager.cursor ? { cursor: pager.cursor } : {}) });
  const actions = useWebhookActions();
  const retry = useMutation(async (d: Delivery) => {
    await actions.retry(endpoint.endpointId, d.deliveryId);
    notices.show({ kind: 'success', text: `Delivery of ${d.type} queued again.` });
  });
  return (
    <section className="card delivery-log" aria-labelledby="delivery-log-title">
      <div className="delivery-log-head">
        <h2 id="delivery-log-title">
          Deliveries to <code>{endpoint.url}</code>
        </h2>
        <Button className="btn-small" onClick={() => void deliveries.reload()}>
          Refresh
        </Button>
      </div>
      <ErrorMessage error={retry.error} />
      <ListTable
        flat
        items={deliveries.data?.items}
        loading={deliveries.loading}
        error={deliveries.error}
        label="Deliveries"
        empty={pager.page === 1 ? 'No deliveries yet.' : undefined}
        columns={['Event', 'State', 'Attempts', 'Last answer', 'Next attempt', actionsColumn]}
        row={(d) => {
          const last = d.attempts.at(-1);
          return (
            <tr key={d.deliveryId}>
              <td>
                <code>{d.type}</code>
                <div className="muted small">
                  <code>{d.eventId}</code> · {when(d.createdAt)}
                </div>
              </td>
              <td>
                <span className={d.state === 'succeeded' ? 'pill pill-success' : d.state === 'failed' ? 'pill pill-warning' : 'pill'}>{d.state}</span>
              </td>
              <td>{d.attempts.length}</td>
              <td>
                {last ? (
                  <>
                    {last.responseStatus !== null ? `HTTP ${last.responseStatus}` : 'No answer'} · {last.durationMs} ms
                    {last.error ? <div className="muted small">{last.error}</div> : null}
                    {last.responseBody ? <pre className="response-excerpt">{last.responseBody}</pre> : null}
                  </>
                ) : (
                  <span className="muted">Not attempted yet</span>
                )}
              </td>
              <td>{d.state === 'pending' ? when(d.nextAttemptAt) : <span className="muted">—</span>}</td>
              <td className="cell-actions">
                <Button className="btn-small" disabled={retry.pending} onClick={() => void retry.run(d)} aria-label={`Redeliver ${d.type} ${d.eventId}`}>
                  Redeliver
                </Button>
              </td>
            </tr>
          );
        }}
      />
      <Pager pager={pager} nextCursor={deliveries.data?.nextCursor} label="Delivery pages" />
    </section>
  );
}

function AddDialog({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: (created: Schemas['CreatedWebhookEndpoint']) => void }) {
  const actions = useWebhookActions();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>(['signature.rendered']);
  const add = useMutation(() => actions.create({ url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const created = await add.run();
    if (created) {
      setUrl('');
      setDescription('');
      onAdded(created);
    }
  };
  const toggle = (type: EventType, on: boolean) => setEvents((now) => (on ? [...now, type] : now.filter((t) => t !== type)));
  const urlError = fieldError(add.error, 'body.url');
  return (
    <Dialog
      title="Add a webhook endpoint"
      open={open}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="add-endpoint" disabled={add.pending || !url.trim() || events.length === 0}>
            {add.pending ? 'Adding…' : 'Add endpoint'}
          </Button>
        </>
      }
    >
      <form id="add-endpoint" onSubmit={(e) => void submit(e)}>
        <TextField
          label="URL"
          type="url"
          hint="An https address on the internet, e.g. https://crm.example.com/hooks/signatures."
          value={url}
          required
          autoFocus
          onChange={(e) => setUrl(e.target.value)}
          error={urlError}
        />
        <TextField
          label="Description (optional)"
          value={description}
          maxLength={maxLengthOf('createWebhookEndpoint', 'description')}
          onChange={(e) => setDescription(e.target.value)}
        />
        <fieldset className="field event-types">
          <legend>Events to send</legend>
          {EVENT_TYPES.map(({ type, what }) => (
            <label key={type}>
              <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} /> <code>{type}</code>{' '}
              <span className="muted">{what}</span>
            </label>
          ))}
        </fieldset>
        {add.error && !urlError ? <ErrorMessage error={add.error} /> : null}
      </form>
    </Dialog>
  );
}
