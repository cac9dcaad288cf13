// The editor's live preview: each change of the source or of the user waits for a pause in typing
// (debounced), then asks the service's preview route; an answer that arrives after a newer request
// was sent is dropped, so the preview never shows an older source than the editor.
import { useEffect, useRef, useState } from 'react';
import { call } from '../../shared/api/client.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { PreviewState } from './Preview.tsx';

export const PREVIEW_DEBOUNCE_MS = 400;

export function usePreview(input: { userId: string | undefined; html: string; text: string }) {
  const { api, orgId } = useOrg();
  const [preview, setPreview] = useState<PreviewState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    const userId = input.userId;
    if (!userId) return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      setBusy(true);
      call(api.POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId } }, body: { userId, html: input.html, text: input.text } })).then(
        (data) => {
          if (ticket !== latest.current) return;
          setPreview({ html: data.html, text: data.text, bytes: data.bytes, warnings: data.warnings });
          setError(null);
          setBusy(false);
        },
        (err: unknown) => {
          if (ticket !== latest.current) return;
          setError(err);
          setBusy(false);
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, orgId, input.userId, input.html, input.text]);

  return { preview, error, busy };
}
