// Asks before leaving a page with unsaved changes: a link inside the app (React Router's blocker)
// gets a dialog; a reload or a closed tab gets the browser's own question (beforeunload).
import { useEffect } from 'react';
import { useBlocker } from 'react-router';
import { ConfirmDialog } from './Dialog.tsx';

export function LeaveGuard({ dirty, what = 'your changes' }: { dirty: boolean; what?: string }) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);
  return (
    <ConfirmDialog
      title="Leave without saving?"
      open={blocker.state === 'blocked'}
      confirmLabel="Leave and lose them"
      onCancel={() => blocker.reset?.()}
      onConfirm={() => blocker.proceed?.()}
    >
      <p>You have not saved {what}. If you leave this page now, they are lost.</p>
    </ConfirmDialog>
  );
}
