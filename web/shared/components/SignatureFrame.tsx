// A rendered signature shown as mail clients show it: in a sandboxed frame that runs no script and
// cannot reach this page (its HTML is the org's template, written by its admins).
import { useState } from 'react';
import { Loading } from './Status.tsx';

// The open pixel (`{base_url}/v1/p/{userId}`, src/tracking/routes.ts) shown as a blank image: a
// look at a signature in the dashboard is not an open of a message (nor a campaign impression).
// Nor is following one of its links a click.
const PIXEL_SRC = /(<img\b[^>]*?\bsrc=)(["'])[^"']*\/v1\/p\/[^"']*\2/gi;
const BLANK_GIF = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
// A tracked link (`{base_url}/v1/c/{token}`, src/clicks/routes.ts) followed from here is a look,
// not a reader's click: `preview=true` sends it on to the same destination and records nothing.
const CLICK_HREF = /(<a\b[^>]*?\bhref=)(["'])([^"'?#]*\/v1\/c\/[A-Za-z0-9_.-]+)\2/gi;

export function SignatureFrame({ html, title }: { html: string; title: string }) {
  const [height, setHeight] = useState(180);
  // Until the frame has laid the signature out (a phone takes a moment), a spinner says it is coming.
  const [loadedDoc, setLoadedDoc] = useState<string | null>(null);
  const doc = `<!doctype html><html><head><meta charset="utf-8"><base target="_blank"><style>body{margin:12px;font-family:Arial,sans-serif;color:#222;background:#fff}</style></head><body>${html.replace(PIXEL_SRC, `$1$2${BLANK_GIF}$2`).replace(CLICK_HREF, '$1$2$3?preview=true$2')}</body></html>`;
  const loaded = loadedDoc === doc;
  return (
    <div className="frame-holder" aria-busy={!loaded}>
      <iframe
        className="signature-frame"
        title={title}
        // Sandboxed without scripts but with same-origin reads for its height only:
        // allow-same-origin without allow-scripts lets this page measure it and lets it run nothing.
        sandbox="allow-same-origin allow-popups"
        srcDoc={doc}
        style={{ height }}
        onLoad={(e) => {
          setLoadedDoc(doc);
          const h = e.currentTarget.contentDocument?.documentElement.scrollHeight;
          if (h) setHeight(Math.min(Math.max(h + 4, 120), 900));
        }}
      />
      {loaded ? null : (
        <div className="frame-holder__loading">
          <Loading label="Loading the preview…" />
        </div>
      )}
    </div>
  );
}
