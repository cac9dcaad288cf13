// The mark a link to count leaves in rendered output (DECISIONS wave 3, "Clicks"): made by the
// `track` Liquid filter (render/liquid.ts) and by campaign banners, where no signing key is at
// hand; turned into the user's signed click URL, or back into the link, by render/tracking.ts.
export const TRACK_MARK = /__sigsvc_track_([A-Za-z0-9_-]+)__/g;

/** The mark of an http(s) link; anything else passes through unchanged. */
export function trackMark(value: unknown): unknown {
  if (typeof value !== 'string' || !/^https?:\/\/[^\s"'<>]+$/i.test(value.trim())) return value;
  return `__sigsvc_track_${Buffer.from(value.trim(), 'utf8').toString('base64url')}__`;
}
