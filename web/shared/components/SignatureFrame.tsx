// A rendered signature shown as mail clients show it: in a sandboxed frame that runs no script and
// cannot reach this page (its HTML is the org's template, written by its admins).
import { useEffect, useRef, useState } from 'react';

export function SignatureFrame({ html, title }: { html: string; title: string }) {
  const ref = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(180);
  const doc = `<!doctype html><html><head><meta charset="utf-8"><base target="_blank"><style>body{margin:12px;font-family:Arial,sans-serif;color:#222;background:#fff}</style></head><body>${html}</body></html>`;
  useEffect(() => {
    // The frame is sandboxed without scripts but with same-origin reads for its height only:
    // allow-same-origin without allow-scripts lets this page measure it and lets it run nothing.
    const frame = ref.current;
    const measure = () => {
      const h = frame?.contentDocument?.documentElement.scrollHeight;
      if (h) setHeight(Math.min(Math.max(h + 4, 120), 900));
    };
    frame?.addEventListener('load', measure);
    return () => frame?.removeEventListener('load', measure);
  }, [doc]);
  return <iframe ref={ref} className="signature-frame" title={title} sandbox="allow-same-origin allow-popups" srcDoc={doc} style={{ height }} />;
}
