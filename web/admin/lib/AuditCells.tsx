// The cells every staff-app audit row ends with: the action, its target and the correlation id
// that finds the request in the logs (the staff audit and an org's audit card).
interface AuditEntryTail {
  action: string;
  targetId?: string | null;
  correlationId?: string | null;
}

export function AuditCells({ entry }: { entry: AuditEntryTail }) {
  return (
    <>
      <td>
        <code>{entry.action}</code>
      </td>
      <td>
        <code className="id">{entry.targetId ?? '—'}</code>
      </td>
      <td>
        <code className="id">{entry.correlationId ?? '—'}</code>
      </td>
    </>
  );
}
