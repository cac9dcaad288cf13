import { useEffect, useState } from 'react';
import { notices, type Notice } from '../notices.ts';

export function Notices() {
  const [list, setList] = useState<Notice[]>([]);
  useEffect(() => notices.subscribe(setList), []);
  return (
    <div className="notices" role="status" aria-live="polite">
      {list.map((n) => (
        <p key={n.id} className={`notice notice-${n.kind}`}>
          {n.text}
        </p>
      ))}
    </div>
  );
}
