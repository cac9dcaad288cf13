// Users from a CSV file: a template to start from, the upload, and what happened to each row
// (created, updated, or refused and why; a refused row changes nothing, the others go on).
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { emailsByRow, IMPORT_COLUMNS, TEMPLATE_CSV } from './csv.ts';
import { useUserActions } from './api.ts';
import { TableWrap } from '../../shared/components/ListTable.tsx';

interface Outcome {
  row: number;
  email: string;
  status: 'created' | 'updated' | 'refused';
  error: string | undefined;
}

function downloadTemplate() {
  const url = URL.createObjectURL(new Blob([TEMPLATE_CSV], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'users-template.csv';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const actions = useUserActions();
  const fileId = useId();
  const [file, setFile] = useState<File>();
  const [outcomes, setOutcomes] = useState<Outcome[]>();
  useEffect(() => {
    if (open) {
      setFile(undefined);
      setOutcomes(undefined);
    }
  }, [open]);
  const upload = useMutation(async (f: File) => {
    const csv = await f.text();
    const results = await actions.importCsv(csv);
    const emails = emailsByRow(csv);
    setOutcomes(results.map((r) => ({ row: r.row, email: emails.get(r.row) ?? '', status: r.status, error: r.error?.message })));
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (file) void upload.run(file);
  };
  const count = (s: Outcome['status']) => outcomes?.filter((o) => o.status === s).length ?? 0;

  return (
    <Dialog title="Import users from a CSV file" open={open} onClose={onClose} wide>
      <p className="muted">
        One user per line, the first line naming the columns: <code>{IMPORT_COLUMNS.join(',')}</code>. Only <code>email</code> is required. A user whose email
        already exists is updated; a new one is invited. An empty cell leaves that field as it is.
      </p>
      <p>
        <Button onClick={downloadTemplate}>Download the template</Button>
      </p>
      <form onSubmit={onSubmit} aria-label="Upload a CSV file">
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              setFile(e.target.files?.[0]);
              setOutcomes(undefined);
              upload.reset();
            }}
          />
        </div>
        <ErrorMessage error={upload.error} />
        <div className="form-actions">
          <Button onClick={onClose}>Close</Button>
          <Button type="submit" variant="primary" disabled={!file || upload.pending}>
            {upload.pending ? 'Importing…' : 'Import'}
          </Button>
        </div>
      </form>
      {outcomes ? (
        <section aria-labelledby={`${fileId}-results`}>
          <h3 id={`${fileId}-results`}>
            {count('created')} created, {count('updated')} updated, {count('refused')} refused
          </h3>
          <TableWrap label="Import results">
            <table aria-label="Import results">
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Email</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {outcomes.map((o) => (
                  <tr key={o.row}>
                    <td>{o.row}</td>
                    <td>{o.email || <span className="muted">—</span>}</td>
                    <td>
                      <span className={`pill${o.status === 'refused' ? ' pill-warning' : ' pill-success'}`}>{o.status}</span>
                      {o.error ? <span> {o.error}</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </section>
      ) : null}
    </Dialog>
  );
}
