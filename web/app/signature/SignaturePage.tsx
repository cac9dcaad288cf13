// A member's own signature: rendered as mail clients will show it, copied in one click as HTML
// (for the signature box of Gmail, Outlook, Apple Mail) or as text, with how to paste it.
import { useState } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { SignatureFrame } from '../../shared/components/SignatureFrame.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { ApiError } from '../../shared/api/errors.ts';
import { useMySignature } from './api.ts';
import { PasteHelp } from '../../shared/components/PasteHelp.tsx';

export default function SignaturePage() {
  const { data, error, loading } = useMySignature();
  const [showSource, setShowSource] = useState(false);
  const noTemplate = error instanceof ApiError && error.status === 404;
  return (
    <section className="page">
      <PageHeader title="My signature">Your email signature, made from your organisation’s template and your profile.</PageHeader>
      {loading && !data ? <Loading label="Rendering your signature…" /> : null}
      {noTemplate ? (
        <div className="alert alert-info" role="status">
          <p>Your organisation has no signature template yet. An administrator creates one under Templates.</p>
        </div>
      ) : (
        <ErrorMessage error={error} />
      )}
      {data ? (
        <>
          <div className="card">
            <SignatureFrame html={data.html} title="Your signature" />
            <div className="form-actions" style={{ justifyContent: 'flex-start', marginTop: '1rem' }}>
              <CopyButton label="Copy signature" variant="primary" html={data.html} text={data.text} />
              <CopyButton label="Copy HTML source" text={data.html} />
              <CopyButton label="Copy as plain text" text={data.text} />
              <button type="button" className="btn btn-ghost" aria-expanded={showSource} onClick={() => setShowSource((s) => !s)}>
                {showSource ? 'Hide' : 'Show'} HTML and text
              </button>
            </div>
            {data.warnings.length > 0 ? (
              <ul className="alert alert-warning" aria-label="Warnings">
                {data.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            ) : null}
            {showSource ? (
              <div className="two-col">
                <div>
                  <h2>HTML ({data.bytes.toLocaleString()} bytes)</h2>
                  <section aria-label="HTML source">
                    <pre className="code">{data.html}</pre>
                  </section>
                </div>
                <div>
                  <h2>Plain text</h2>
                  <section aria-label="Plain text">
                    <pre className="code">{data.text}</pre>
                  </section>
                </div>
              </div>
            ) : null}
          </div>
          <PasteHelp />
        </>
      ) : null}
    </section>
  );
}
