// What each replayed event became: applied, ignored, pending, failed again (with why), or not failed.
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { Empty } from '../../shared/components/Status.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import type { ReplayResult } from '../lib/types.ts';

export function ReplayResults({ results, onClose }: { results: ReplayResult[] | undefined; onClose: () => void }) {
  return (
    <Dialog title="Replay results" open={results !== undefined} onClose={onClose} wide footer={<Button onClick={onClose}>Close</Button>}>
      {results && results.length === 0 ? <Empty>No event was failed: nothing to replay.</Empty> : null}
      {results && results.length > 0 ? (
        <div className="table-wrap flat">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Result</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r) => (
                <tr key={r.id}>
                  <td>
                    <code>{r.id}</code>
                  </td>
                  <td>
                    <StatusPill status={r.result} />
                  </td>
                  <td className="wrap">{r.detail || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Dialog>
  );
}
