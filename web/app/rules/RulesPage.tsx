// Rules: which template each person gets (docs/api.md, "Rules"), and "who gets what": pick a person
// and see the rule that applies and the signature it gives, for a new message and for a reply.
import { useState } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { SelectField, TextField } from '../../shared/components/Field.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { describeWhen } from '../../shared/when.ts';
import { usePeople, useRules, useSignatureFor, useTemplates } from './api.ts';
import { TableWrap } from '../../shared/components/ListTable.tsx';

function Outcome({
  userId,
  compose,
  ruleName,
  templateName,
}: {
  userId: string;
  compose: 'new' | 'reply';
  ruleName: (id: string | null) => string;
  templateName: (id: string) => string;
}) {
  const { data, error, loading } = useSignatureFor(userId, compose);
  const label = compose === 'new' ? 'New message' : 'Reply or forward';
  return (
    <section className="card" aria-label={label}>
      <h2>{label}</h2>
      {loading && !data ? <Loading label="Rendering…" /> : null}
      <ErrorMessage error={error} />
      {data ? (
        <>
          <dl className="facts">
            <dt>Rule</dt>
            <dd>{ruleName(data.ruleId)}</dd>
            <dt>Template</dt>
            <dd>{templateName(data.templateId)}</dd>
          </dl>
          <SignatureFrame html={data.html} title={`Signature for a ${compose === 'new' ? 'new message' : 'reply'}`} />
        </>
      ) : null}
    </section>
  );
}

export default function RulesPage() {
  const rules = useRules();
  const templates = useTemplates();
  const [q, setQ] = useState('');
  const people = usePeople(q.trim());
  const [userId, setUserId] = useState<string>('');
  const templateName = (id: string) => templates.data?.items.find((t) => t.templateId === id)?.name ?? id;
  const ruleName = (id: string | null) => (id ? (rules.data?.find((r) => r.ruleId === id)?.name ?? id) : 'No rule matched: the default template');
  return (
    <section className="page">
      <PageHeader title="Rules">Which signature each person gets. The first rule a person meets wins; nobody matched gets the default template.</PageHeader>
      <div className="card">
        <h2>Rules in order</h2>
        {rules.loading && !rules.data ? <Loading /> : null}
        <ErrorMessage error={rules.error} />
        {rules.data && rules.data.length === 0 ? (
          <Empty>No rules yet: everyone gets the default template. Rules are set with PUT /v1/orgs/{'{orgId}'}/rules.</Empty>
        ) : null}
        {rules.data && rules.data.length > 0 ? (
          <TableWrap label="Rules" flat>
            <table className="table" aria-label="Rules">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Name</th>
                  <th>When</th>
                  <th>New messages</th>
                  <th>Replies</th>
                </tr>
              </thead>
              <tbody>
                {rules.data.map((r, i) => (
                  <tr key={r.ruleId}>
                    <td>{i + 1}</td>
                    <td>{r.name}</td>
                    <td>{describeWhen(r.when)}</td>
                    <td>{templateName(r.templateId)}</td>
                    <td>{templateName(r.replyTemplateId ?? r.templateId)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
      </div>
      <div className="card">
        <h2>Who gets what</h2>
        <div className="grid">
          <TextField label="Find a person" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Name or email" />
          <SelectField label="Person" value={userId} onChange={(e) => setUserId(e.target.value)}>
            <option value="">Choose a person…</option>
            {people.data?.items.map((u) => (
              <option key={u.userId} value={u.userId}>
                {u.name || u.email} ({u.email}){u.department ? ` · ${u.department}` : ''}
              </option>
            ))}
          </SelectField>
        </div>
      </div>
      {userId ? (
        <div className="two-col">
          <Outcome userId={userId} compose="new" ruleName={ruleName} templateName={templateName} />
          <Outcome userId={userId} compose="reply" ruleName={ruleName} templateName={templateName} />
        </div>
      ) : null}
    </section>
  );
}
