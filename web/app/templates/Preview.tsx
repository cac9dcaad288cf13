// The live preview: the unsaved template rendered by the service (the preview route) as the user
// the admin picked, shown in an iframe that runs nothing (`sandbox=""`: no script, no forms, no
// same-origin access), at a desktop or a phone width. The size meter counts the rendered HTML's
// UTF-8 bytes against the service's render limit (RENDER_LIMIT_BYTES, from the runtime config).
import { useState } from 'react';
import { Loading } from '../../shared/components/Status.tsx';

export interface PreviewState {
  html: string;
  text: string;
  bytes: number;
  warnings: string[];
}

export function SizeMeter({ bytes, limit }: { bytes: number; limit: number }) {
  const ratio = Math.min(bytes / limit, 1);
  const level = bytes > limit ? 'over' : ratio > 0.8 ? 'near' : 'ok';
  return (
    <div className={`size-meter size-meter--${level}`}>
      <label htmlFor="size-meter">
        Rendered size: {(bytes / 1024).toFixed(1)} KB of {(limit / 1024).toFixed(0)} KB
      </label>
      <meter id="size-meter" min={0} max={limit} low={limit * 0.8} high={limit * 0.95} optimum={0} value={Math.min(bytes, limit)} />
      {bytes > limit ? <p role="alert">Over the limit: the service refuses to render this signature. Shorten the template.</p> : null}
    </div>
  );
}

export function PreviewFrame({ preview, busy }: { preview: PreviewState | null; busy: boolean }) {
  const [width, setWidth] = useState<'desktop' | 'phone'>('desktop');
  return (
    <section className="preview" aria-labelledby="preview-heading" aria-busy={busy}>
      <div className="preview__bar">
        <h3 id="preview-heading">Preview</h3>
        <fieldset aria-label="Preview width" className="segmented">
          <button type="button" aria-pressed={width === 'desktop'} onClick={() => setWidth('desktop')}>
            Desktop
          </button>
          <button type="button" aria-pressed={width === 'phone'} onClick={() => setWidth('phone')}>
            Phone
          </button>
        </fieldset>
      </div>
      <div className={`preview__stage preview__stage--${width}`}>
        <iframe
          title="Signature preview"
          sandbox=""
          srcDoc={preview ? `<!doctype html><meta charset="utf-8"><body style="margin:12px;font-family:Arial,sans-serif">${preview.html}` : ''}
          className="preview__frame"
          data-width={width}
        />
        {busy || !preview ? (
          <div className="frame-holder__loading">
            <Loading label="Rendering the preview…" />
          </div>
        ) : null}
      </div>
      {preview?.text ? (
        <details className="preview__text">
          <summary>Plain-text version</summary>
          <pre>{preview.text}</pre>
        </details>
      ) : null}
    </section>
  );
}
