// The designer's preview: as a sample person with every field filled (the default, so no
// conditional line hides) or as any user; desktop, phone, or a dark-mode simulation (mail apps that
// darken messages invert light colours: images keep theirs); the size meter and the warnings.
import { useState } from 'react';
import { Loading } from '../../shared/components/Status.tsx';
import { ErrorMessage } from '../../shared/components/Status.tsx';
import { SizeMeter } from './Preview.tsx';
import { useSettled } from '../../shared/use-settled.ts';
import { PreviewUserPicker } from './PreviewUserPicker.tsx';
import type { DesignPreview } from './api.ts';

type View = 'desktop' | 'phone' | 'dark';

const DARK = 'html{background:#fff;filter:invert(1) hue-rotate(180deg)}img{filter:invert(1) hue-rotate(180deg)}';

export function DesignPreviewPanel({
  preview,
  userId,
  onUser,
  limit,
  saveWarnings,
}: {
  preview: DesignPreview;
  userId: string | undefined;
  onUser: (userId: string | undefined) => void;
  limit: number;
  saveWarnings: readonly string[];
}) {
  const [view, setView] = useState<View>('desktop');
  // A refusal (a custom HTML block's half-typed Liquid) shows once editing pauses, not at each key.
  const error = useSettled(preview.error, 1200);
  const r = preview.rendered;
  const warnings = [...new Set([...(preview.compiled?.warnings ?? []), ...(r?.warnings ?? []), ...saveWarnings])];
  const doc = r
    ? `<!doctype html><meta charset="utf-8"><style>body{margin:12px;font-family:Arial,sans-serif;background:#fff}${view === 'dark' ? DARK : ''}</style><body>${r.html}`
    : '';
  return (
    <section className="preview designer-preview" aria-labelledby="preview-heading" aria-busy={preview.busy}>
      <div className="preview__bar">
        <h2 id="preview-heading" className="h3">
          Preview
        </h2>
        <fieldset aria-label="Preview view" className="segmented">
          {(['desktop', 'phone', 'dark'] as const).map((v) => (
            <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)}>
              {v === 'desktop' ? 'Desktop' : v === 'phone' ? 'Phone' : 'Dark mode'}
            </button>
          ))}
        </fieldset>
      </div>
      <fieldset className="preview-who">
        <legend>Preview as</legend>
        <label className="check">
          <input type="radio" name="preview-who" checked={userId === undefined} onChange={() => onUser(undefined)} /> A sample person (every field filled)
        </label>
        <label className="check">
          <input type="radio" name="preview-who" checked={userId !== undefined} onChange={() => onUser('')} /> Someone in your organisation
        </label>
        {userId !== undefined ? <PreviewUserPicker value={userId || undefined} onChange={(id) => onUser(id)} /> : null}
      </fieldset>
      <ErrorMessage error={error} />
      <div className={`preview__stage preview__stage--${view === 'phone' ? 'phone' : 'desktop'}`}>
        <iframe title="Signature preview" sandbox="" srcDoc={doc} className="preview__frame" data-view={view} />
        {preview.busy || !r ? (
          <div className="frame-holder__loading">
            <Loading label="Rendering the preview…" />
          </div>
        ) : null}
      </div>
      {r ? <SizeMeter bytes={r.bytes} limit={limit} /> : null}
      {r && r.html.length > 10_000 ? (
        <p className="field-error">Gmail refuses signatures longer than 10,000 characters: this one has {r.html.length.toLocaleString()}.</p>
      ) : null}
      <section aria-labelledby="warnings-heading" className="warnings">
        <h3 id="warnings-heading">Warnings</h3>
        {warnings.length === 0 ? (
          <p className="muted">None: this signature should show well in the common mail clients.</p>
        ) : (
          <ul>
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}
