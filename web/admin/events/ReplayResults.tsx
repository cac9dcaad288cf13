// What each replayed event became: applied, ignored, pending, failed again (with why), or not failed.
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ListTable } from '../../shared/components/ListTable.tsx';
import { StatusPill } from '../lib/StatusPill.tsx';
import type { ReplayResult } from '../lib/types.ts';

export function ReplayResults({ results, onClose }: { results: ReplayResult[] | undefined; onClose: () => void }) {
  return (
    <Dialog title="Replay results" open={results !== undefined} onClose={onClose} wide footer={<Button onClick={onClose}>Close</Button>}>
      <ListTable
        items={results}
        label="Replay results"
        empty="No event was failed: nothing to replay."
        flat
        columns={['Event', 'Result', 'Detail']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <code>{r.id}</code>
            </td>
            <td>
              <StatusPill status={r.result} />
            </td>
            <td className="wrap">{r.detail || '—'}</td>
          </tr>
        )}
      />
    </Dialog>
  );
}
