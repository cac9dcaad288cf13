// The mark a link to count leaves in rendered output (DECISIONS wave 3, "Clicks"): made by the
// `track` Liquid filter (render/liquid.ts) and by campaign banners, where no signing key is at
// hand; turned into the user's signed click URL, or back into the link, by render/tracking.ts.
/** The longest link a person, a design or a campaign may give (a click token is sized for it: clicks/token.ts). */
export const MAX_LINK_CHARS = 2000;

/**
 * An http(s) link as people, designs and campaigns give them, and as clicks record them: no space,
 * quote, angle bracket or control character (a NUL, which PostgreSQL's text cannot hold, made every
 * org's clicks wait behind a row the database refused; a control character is six bytes in a
 * token's JSON, which took a 2,000-character link past what the click route takes), at most
 * MAX_LINK_CHARS.
 */
export function isWebLink(value: string): boolean {
  return value.length <= MAX_LINK_CHARS && /^https?:\/\/[^\s"'<>\p{Cc}]+$/iu.test(value);
}

const MARK_PREFIX = '__sigsvc_track_';
export const TRACK_MARK = new RegExp(`${MARK_PREFIX}([A-Za-z0-9_-]+)__`, 'g');

/** The mark of an http(s) link (`isWebLink`); anything else, a longer link included, passes through unchanged, untracked. */
export function trackMark(value: unknown): unknown {
  if (typeof value !== 'string' || !isWebLink(value.trim())) return value;
  return `${MARK_PREFIX}${Buffer.from(value.trim(), 'utf8').toString('base64url')}__`;
}

/**
 * A person's or an org's own text with any mark in it made inert: a member who wrote a mark into
 * their name would otherwise get a signed click URL to anywhere (an open redirect on the service's
 * domain). Marks come only from the `track` filter and the campaign's banner, never from data.
 */
export function defuseTrackMarks<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll(MARK_PREFIX, '__sigsvc_untracked_') as T;
  if (Array.isArray(value)) return value.map((v) => defuseTrackMarks(v)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, defuseTrackMarks(v)])) as T;
  return value;
}
