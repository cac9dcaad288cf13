// The cells every staff-app audit row ends with: the action, its target and the correlation id
// that finds the request in the logs (the staff audit and an org's audit card).
import type { ReactNode } from 'react';

interface AuditEntryTail {
  action: string;
  targetId?: string | null;
  correlationId?: string | null;
}

/** `target`: the target named (a user's name), in place of its id. */
export function AuditCells({ entry, target }: { entry: AuditEntryTail; target?: ReactNode }) {
  return (
    <>
      <td>
        <code>{entry.action}</code>
      </td>
      <td>{target ?? <code className="id">{entry.targetId ?? '—'}</code>}</td>
      <td>
        <code className="id">{entry.correlationId ?? '—'}</code>
      </td>
    </>
  );
}
