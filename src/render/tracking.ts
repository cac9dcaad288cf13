// The second half of the `track` filter (render/liquid.ts): its marks in rendered output become
// signed click URLs (src/clicks/) or, where nothing is counted, the links themselves.
import { isWebLink, TRACK_MARK } from '../lib/track-mark.ts';
import { escapeHtml } from '../lib/html.ts';

/**
 * Replaces every mark; `urlOf` answers what a link becomes (itself, when clicks are not tracked).
 * In HTML output the URL is escaped as the Liquid output it stands for would have been.
 */
export function resolveTrackMarks(output: string, urlOf: (destination: string) => string, html = true): string {
  if (!output.includes('__sigsvc_track_')) return output;
  return output.replace(TRACK_MARK, (_, b64: string) => {
    const destination = Buffer.from(b64, 'base64url').toString('utf8');
    if (!isWebLink(destination)) return '';
    return html ? escapeHtml(urlOf(destination)) : urlOf(destination);
  });
}
