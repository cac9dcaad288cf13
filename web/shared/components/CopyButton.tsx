import { Button, type ButtonVariant } from './Button.tsx';
import { notices } from '../notices.ts';

/**
 * Copies to the clipboard. With `html`, writes text/html and text/plain together, so a mail
 * client's signature box receives the formatted signature.
 */
export function CopyButton({ label, text, html, variant = 'secondary' }: { label: string; text: string; html?: string; variant?: ButtonVariant }) {
  const copy = async () => {
    try {
      if (html !== undefined && typeof ClipboardItem !== 'undefined') {
        await navigator.clipboard.write([
          new ClipboardItem({ 'text/html': new Blob([html], { type: 'text/html' }), 'text/plain': new Blob([text], { type: 'text/plain' }) }),
        ]);
      } else {
        await navigator.clipboard.writeText(text);
      }
      notices.show({ kind: 'success', text: 'Copied to the clipboard.' });
    } catch {
      notices.show({ kind: 'error', text: 'The browser did not allow copying. Select the text and copy it by hand.' }, 6000);
    }
  };
  return (
    <Button variant={variant} onClick={() => void copy()}>
      {label}
    </Button>
  );
}
