// Liquid for untrusted templates: org admins write them, every org shares the process. No file
// system (include/render/layout find nothing), own properties only, and hard limits on parse size,
// render time and memory, so a hostile template fails fast instead of slowing anyone else.
import { Liquid, type FS, type Template } from 'liquidjs';
import { AppError } from '../errors.ts';

const noFiles: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (file) => {
    throw new Error(`templates cannot include files (${file})`);
  },
  readFileSync: (file) => {
    throw new Error(`templates cannot include files (${file})`);
  },
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
};

export const LIMITS = { parseChars: 100_000, renderMs: 100, memory: 2_000_000 };

function engine(escape: boolean): Liquid {
  return new Liquid({
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
    ...(escape ? { outputEscape: 'escape' as const } : {}),
  });
}

/** `html` templates escape every output by default; `text` templates are plain text. */
export const htmlLiquid = engine(true);
export const textLiquid = engine(false);

export const KNOWN_VARIABLES = new Set([
  'user',
  'user.name',
  'user.title',
  'user.email',
  'user.phone',
  'user.mobile',
  'user.department',
  'org',
  'org.name',
  'pixel_url',
]);

/** Parses, or refuses with 400 naming the field, line and column. */
export function parseTemplate(source: string, field: 'html' | 'text'): Template[] {
  const liquid = field === 'html' ? htmlLiquid : textLiquid;
  try {
    return liquid.parse(source);
  } catch (err) {
    const e = err as { message?: string; token?: { getPosition?: () => [number, number] } };
    const [line, column] = e.token?.getPosition?.() ?? [undefined, undefined];
    throw new AppError('BAD_REQUEST', `body.${field}: Liquid syntax error: ${(e.message ?? 'invalid template').replace(/, line:\d+, col:\d+$/, '')}`, {
      details: { field: `body.${field}`, ...(line ? { line, column } : {}) },
    });
  }
}

/** Variables the template reads that no signature provides (a warning, not an error). */
export function unknownVariables(templates: Template[], liquid: Liquid): string[] {
  const used = liquid.globalFullVariablesSync(templates);
  return [...new Set(used.filter((v) => !KNOWN_VARIABLES.has(v)))].sort();
}

/** Renders under the limits; a template that breaks them is the client's problem (4xx). */
export async function renderTemplate(templates: Template[], liquid: Liquid, scope: object, field: 'html' | 'text'): Promise<string> {
  try {
    return await liquid.render(templates, scope);
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/, line:\d+, col:\d+$/, '') : String(err);
    const limit = /limit exceeded/.test(message);
    throw new AppError(
      limit ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
      limit
        ? `The ${field} template exceeds the render limits (${LIMITS.renderMs} ms, ${LIMITS.memory} bytes): ${message}.`
        : `The ${field} template failed to render: ${message}.`,
      { details: { field: `body.${field}` } },
    );
  }
}
