// A modal on the native <dialog> (focus kept inside, Escape closes, the page behind inert).
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from './Button.tsx';

export function Dialog({
  title,
  open,
  onClose,
  children,
  footer,
  wide,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <Button variant="ghost" aria-label="Close" onClick={onClose}>
              ×
            </Button>
          </header>
          <div className="dialog-body">{children}</div>
          {footer ? <footer className="dialog-footer">{footer}</footer> : null}
        </>
      ) : null}
    </dialog>
  );
}

/** Asks before an action that cannot be undone. */
export function ConfirmDialog({
  title,
  open,
  onCancel,
  onConfirm,
  confirmLabel,
  pending,
  children,
}: {
  title: string;
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  confirmLabel: string;
  pending?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog
      title={title}
      open={open}
      onClose={onCancel}
      footer={
        <>
          <Button onClick={onCancel}>Cancel</Button>
          <Button variant="danger" onClick={onConfirm} disabled={pending}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
