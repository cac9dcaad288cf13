// Liquid for untrusted templates: org admins write them, every org shares the process. No file
// system (include/render/layout are refused when parsed), own properties only, and hard limits on
// parse size, render time and memory, so a hostile template fails fast instead of slowing anyone
// else. Templates are parsed and rendered only in the render worker (worker.ts), where the render
// limit counts the thread's CPU time rather than the wall clock.
import { trackMark } from '../lib/track-mark.ts';
import { Liquid, Tag, type FS, type Template } from 'liquidjs';
import { AppError } from '../kernel/errors.ts';
import { refusalSubject, type TemplateOrigin } from './refusal.ts';

// The one wording of the refusal: parseTemplate recognises it to leave out the syntax-error prefix.
const NO_FILES = 'templates cannot include files';

const noFiles: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (file) => {
    throw new Error(`${NO_FILES} (${file})`);
  },
  readFileSync: (file) => {
    throw new Error(`${NO_FILES} (${file})`);
  },
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
};

export const LIMITS = { parseChars: 100_000, renderMs: 100, memory: 2_000_000 };

// Without these the tags parse, look the file up in `noFiles` and fail at render with the
// library's "ENOENT: Failed to lookup …"; refused at parse, the admin reads why, at the tag's line.
class NoFileTag extends Tag {
  constructor(...args: ConstructorParameters<typeof Tag>) {
    super(...args);
    throw new Error(`${NO_FILES}: {% ${this.name} %} is not available; put the markup in the template itself`);
  }
  render(): never {
    throw new Error('unreachable: the tag is refused when parsed');
  }
}

// `{{ url | track }}`: a web link to count. The render thread holds no signing key, so it leaves a
// mark (lib/track-mark.ts) that the main thread resolves (render/tracking.ts).

function engine(escaped: boolean): Liquid {
  const liquid = new Liquid({
    fs: noFiles,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    ownPropertyOnly: true,
    strictFilters: true,
    cache: false,
    parseLimit: LIMITS.parseChars,
    renderLimit: LIMITS.renderMs,
    memoryLimit: LIMITS.memory,
    ...(escaped ? { outputEscape: 'escape' as const } : {}),
  });
  for (const name of ['include', 'render', 'layout']) liquid.registerTag(name, NoFileTag);
  liquid.registerFilter('track', trackMark);
  return liquid;
}

/** `html` templates escape every output by default; `text` templates are plain text. */
export const htmlLiquid = engine(true);
export const textLiquid = engine(false);

const SOCIAL = ['linkedin', 'x', 'facebook', 'instagram', 'youtube', 'github'];
const USER_FIELDS = ['name', 'title', 'email', 'phone', 'mobile', 'department', 'pronouns', 'website', 'address', 'photo_url', 'social', 'attributes'];
const ORG_FIELDS = ['name', 'website', 'address', 'social', 'logo_url'];

export const KNOWN_VARIABLES = new Set([
  'user',
  ...USER_FIELDS.map((f) => `user.${f}`),
  ...SOCIAL.map((n) => `user.social.${n}`),
  'org',
  ...ORG_FIELDS.map((f) => `org.${f}`),
  ...SOCIAL.map((n) => `org.social.${n}`),
  'campaign',
  'campaign.banner',
  'campaign.text',
  'pixel_url',
]);

/** The variables as a warning lists them: `<key>` stands for each of the org's custom fields. */
export const KNOWN_LIST = [
  ...USER_FIELDS.filter((f) => f !== 'social' && f !== 'attributes').map((f) => `user.${f}`),
  ...SOCIAL.map((n) => `user.social.${n}`),
  'user.attributes.<key>',
  ...ORG_FIELDS.filter((f) => f !== 'social').map((f) => `org.${f}`),
  ...SOCIAL.map((n) => `org.social.${n}`),
  'campaign.banner',
  'campaign.text',
  'pixel_url',
].join(', ');

/** A custom field's value: known whatever the key (the org's fields change without its templates). */
const ATTRIBUTE = /^user\.attributes\.[a-z][a-z0-9_]{0,31}$/;

/** Parses, or refuses with 400 naming the field, line and column. */
export function parseTemplate(source: string, field: 'html' | 'text'): Template[] {
  const liquid = field === 'html' ? htmlLiquid : textLiquid;
  try {
    return liquid.parse(source);
  } catch (err) {
    const e = err as { message?: string; token?: { getPosition?: () => [number, number] } };
    const [line, column] = e.token?.getPosition?.() ?? [undefined, undefined];
    const message = (e.message ?? 'invalid template').replace(/, line:\d+, col:\d+$/, '');
    const kind = message.startsWith(NO_FILES) ? '' : 'Liquid syntax error: ';
    throw new AppError('BAD_REQUEST', `body.${field}: ${kind}${message}`, {
      details: { field: `body.${field}`, ...(line ? { line, column } : {}) },
    });
  }
}

/** Variables the template reads that no signature provides (a warning, not an error). */
export function unknownVariables(templates: Template[], liquid: Liquid): string[] {
  const used = liquid.globalFullVariablesSync(templates);
  return [...new Set(used.filter((v) => !KNOWN_VARIABLES.has(v) && !ATTRIBUTE.test(v)))].sort();
}

/**
 * Renders under the limits; a template that breaks them is the client's problem (4xx). Synchronous:
 * no filter or tag here does I/O, and in the render thread nothing else waits, while the async
 * render drove every node through a promise (a seventh of a first render).
 */
export function renderTemplate(templates: Template[], liquid: Liquid, scope: object, part: 'html' | 'text', origin: TemplateOrigin = 'body'): string {
  try {
    return liquid.renderSync(templates, scope);
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/, line:\d+, col:\d+$/, '') : String(err);
    const limit = /limit exceeded/.test(message);
    const { field, subject, context } = refusalSubject(origin, part);
    // A limit is the template's doing, like a syntax error: 400 (docs/api.md, "Rendering and the pixel").
    throw new AppError(
      'BAD_REQUEST',
      limit
        ? `${subject} exceeds the render limits (${LIMITS.renderMs} ms of CPU time, ${LIMITS.memory} bytes of memory)${context}: ${message}.`
        : `${subject} failed to render${context}: ${message}.`,
      { details: origin === 'body' ? { field } : { field, part } },
    );
  }
}
