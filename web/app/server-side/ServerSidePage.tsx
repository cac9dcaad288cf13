// Server-side (all mail clients): the SMTP signature gateway (docs/gateway.md). Sender domains and
// their TXT records, the gateway's credentials (the password shown once), allowed networks, next
// hop, today's counts, a test message, and the steps for Microsoft 365 and Google Workspace.
import { useState, type FormEvent } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { notices } from '../../shared/notices.ts';
import { networksText, parseNetworks, useDomains, useGateway, useGatewayActions, type GatewaySettings } from './api.ts';
import { TableWrap } from '../../shared/components/ListTable.tsx';

export default function ServerSidePage() {
  return (
    <section className="page">
      <PageHeader title="Server-side (all mail clients)">
        Route your organisation's outgoing mail through the signature gateway: every message gets its sender's signature, whatever mail client, phone or app
        sent it.
      </PageHeader>
      <DomainsCard />
      <GatewayCard />
    </section>
  );
}

function DomainsCard() {
  const domains = useDomains();
  const actions = useGatewayActions();
  const [domain, setDomain] = useState('');
  const claim = useMutation(async () => {
    await actions.claim(domain.trim());
    setDomain('');
  });
  const verify = useMutation(async (name: string) => {
    await actions.verify(name);
    notices.show({ kind: 'success', text: `${name} is verified.` });
  });
  const remove = useMutation((name: string) => actions.remove(name));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void claim.run();
  };
  return (
    <div className="card">
      <h2>Sender domains</h2>
      <p>The gateway relays mail only from domains verified for your organisation: publish each domain's TXT record, then verify it.</p>
      {domains.loading && domains.data === undefined ? <Loading /> : null}
      <ErrorMessage error={domains.error ?? verify.error ?? remove.error} />
      {domains.data?.length === 0 ? <Empty>No domain yet.</Empty> : null}
      {domains.data && domains.data.length > 0 ? (
        <TableWrap label="Sender domains" flat>
          <table aria-label="Sender domains">
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">TXT record</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {domains.data.map((d) => (
                <tr key={d.domain}>
                  <td>{d.domain}</td>
                  <td>
                    <code>{d.verificationRecord.name}</code> <code>{d.verificationRecord.value}</code>{' '}
                    <CopyButton label={`Copy the TXT value of ${d.domain}`} text={d.verificationRecord.value} variant="ghost" />
                  </td>
                  <td>{d.verified ? 'Verified' : 'Not verified'}</td>
                  <td>
                    {d.verified ? null : (
                      <Button onClick={() => void verify.run(d.domain)} disabled={verify.pending}>
                        Verify {d.domain}
                      </Button>
                    )}
                    <Button variant="ghost" onClick={() => void remove.run(d.domain)} disabled={remove.pending}>
                      Remove {d.domain}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <form onSubmit={submit}>
        <TextField
          label="Domain"
          hint="The part after @ of your senders' addresses, e.g. contoso.com."
          value={domain}
          required
          onChange={(e) => setDomain(e.target.value)}
        />
        <ErrorMessage error={claim.error} />
        <div className="page-actions">
          <Button variant="primary" type="submit" disabled={claim.pending}>
            Add the domain
          </Button>
        </div>
      </form>
    </div>
  );
}

function GatewayCard() {
  const gateway = useGateway();
  const [editing, setEditing] = useState(false);
  const [password, setPassword] = useState<string | null>(null);
  return (
    <div className="card">
      <h2>The gateway</h2>
      {gateway.loading && gateway.data === undefined ? <Loading /> : null}
      <ErrorMessage error={gateway.error} />
      {password ? (
        <div className="alert alert-warning" role="alert">
          <p>
            <strong>The gateway's password, shown this once:</strong> <code>{password}</code>
          </p>
          <CopyButton label="Copy the password" text={password} />
        </div>
      ) : null}
      {gateway.data === null || editing ? (
        <SettingsForm
          current={gateway.data ?? null}
          onDone={(saved) => {
            setEditing(false);
            if (saved?.password) setPassword(saved.password);
          }}
        />
      ) : null}
      {gateway.data && !editing ? <Configured gateway={gateway.data} onEdit={() => setEditing(true)} onPassword={setPassword} /> : null}
    </div>
  );
}

function SettingsForm({ current, onDone }: { current: GatewaySettings | null; onDone: (saved: GatewaySettings | null) => void }) {
  const actions = useGatewayActions();
  const [host, setHost] = useState(current?.nextHop.host ?? '');
  const [port, setPort] = useState(String(current?.nextHop.port ?? 25));
  const [secure, setSecure] = useState(current?.nextHop.secure ?? false);
  const [networks, setNetworks] = useState(networksText(current?.allowedNetworks ?? []));
  const [stampInternal, setStampInternal] = useState(current?.stampInternal ?? false);
  const [tenant, setTenant] = useState(current?.m365TenantId ?? '');
  const save = useMutation(async () => {
    const saved = await actions.save({
      nextHop: { host: host.trim(), port: Number(port), secure },
      allowedNetworks: parseNetworks(networks),
      stampInternal,
      m365TenantId: tenant.trim() || null,
    });
    notices.show({ kind: 'success', text: 'The gateway settings are saved.' });
    onDone(saved);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form onSubmit={submit}>
      <TextField
        label="Next hop host"
        hint="Where stamped mail goes: your tenant's MX host, or smtp-relay.gmail.com."
        value={host}
        required
        onChange={(e) => setHost(e.target.value)}
      />
      <TextField label="Next hop port" type="number" min={1} value={port} required onChange={(e) => setPort(e.target.value)} />
      <fieldset className="field">
        <legend>Options</legend>
        <label>
          <input type="checkbox" checked={secure} onChange={(e) => setSecure(e.target.checked)} /> TLS to the next hop from the start (port 465)
        </label>
        <label>
          <input type="checkbox" checked={stampInternal} onChange={(e) => setStampInternal(e.target.checked)} /> Stamp internal mail too
        </label>
      </fieldset>
      <div className="field">
        <label htmlFor="gateway-networks">Allowed networks</label>
        <textarea id="gateway-networks" rows={3} aria-describedby="gateway-networks-hint" value={networks} onChange={(e) => setNetworks(e.target.value)} />
        <p className="field-hint" id="gateway-networks-hint">
          One range a line. Add “shared” after a provider's range (Microsoft 365, Google): a shared range alone does not name your organisation.
        </p>
      </div>
      <TextField
        label="Microsoft 365 tenant ID"
        hint="Optional: names your organisation by the X-MS-Exchange-CrossTenant-Id header."
        value={tenant}
        onChange={(e) => setTenant(e.target.value)}
      />
      <ErrorMessage error={save.error} />
      <div className="page-actions">
        <Button variant="primary" type="submit" disabled={save.pending}>
          {current ? 'Save' : 'Set up the gateway'}
        </Button>
        {current ? <Button onClick={() => onDone(null)}>Cancel</Button> : null}
      </div>
    </form>
  );
}

function Configured({ gateway, onEdit, onPassword }: { gateway: GatewaySettings; onEdit: () => void; onPassword: (p: string) => void }) {
  const actions = useGatewayActions();
  const [to, setTo] = useState('');
  const rotate = useMutation(async () => {
    const rotated = await actions.rotatePassword();
    if (rotated.password) onPassword(rotated.password);
  });
  const [result, setResult] = useState<{ outcome: string; reply: string } | null>(null);
  const test = useMutation(async () => setResult(await actions.test(to.trim())));
  const c = gateway.counts;
  return (
    <>
      <dl className="facts">
        <dt>User name</dt>
        <dd>
          <code>{gateway.username}</code>
        </dd>
        <dt>Smart host</dt>
        <dd>{gateway.smartHost ? <code>{gateway.smartHost}</code> : 'set GATEWAY_DOMAIN on the server for a name of your own'}</dd>
        <dt>Next hop</dt>
        <dd>
          <code>
            {gateway.nextHop.host}:{gateway.nextHop.port}
          </code>
          {gateway.nextHop.secure ? ' (TLS)' : ''}
        </dd>
        <dt>Allowed networks</dt>
        <dd>
          {gateway.allowedNetworks.length === 0
            ? 'none (credentials or the smart-host name only)'
            : gateway.allowedNetworks.map((n) => `${n.cidr}${n.shared ? ' (shared)' : ''}`).join(', ')}
        </dd>
        <dt>Today</dt>
        <dd>
          {c.stamped} stamped, {c.passed} passed, {c.refused} refused, {c.failed} failed
        </dd>
        <dt>Last message</dt>
        <dd>{gateway.lastMessageAt ? new Date(gateway.lastMessageAt).toLocaleString() : 'never'}</dd>
      </dl>
      <div className="page-actions">
        <Button onClick={onEdit}>Edit the settings</Button>
        <Button onClick={() => void rotate.run()} disabled={rotate.pending}>
          New password
        </Button>
      </div>
      <ErrorMessage error={rotate.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void test.run();
        }}
      >
        <TextField label="Send a test message to" type="email" value={to} required onChange={(e) => setTo(e.target.value)} />
        <div className="page-actions">
          <Button type="submit" disabled={test.pending}>
            Send a test message
          </Button>
        </div>
        <ErrorMessage error={test.error} />
        {result ? (
          <p role="status">
            {result.outcome}: <code>{result.reply}</code>
          </p>
        ) : null}
      </form>
      <h3>Microsoft 365</h3>
      <ol>
        {gateway.routing.microsoft365.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      <h3>Google Workspace</h3>
      <ol>
        {gateway.routing.googleWorkspace.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
    </>
  );
}
