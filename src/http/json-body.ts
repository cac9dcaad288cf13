// JSON request bodies, refused when they nest deeper than any request of ours needs. V8 parses a
// 5 MB body of 2.6 million nested brackets in ~0.7 s on the main thread (the depth is what costs:
// a flat 4 MB array parses in ~14 ms), and the body limit is 5 MB, so without a bound one request
// held every tenant's requests for most of a second, before any route, even an unknown one. The
// bound is checked by a scan of the text before JSON.parse: no parser we use takes a depth limit
// (JSON.parse, secure-json-parse), hence the few lines here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.ts';

/** Deeper than any body of the API (a design, a SCIM PATCH: under ten levels), far below what costs. */
export const MAX_JSON_DEPTH = 64;

/** Whether the JSON text opens more than `max` arrays or objects inside one another (strings skipped). */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // A text this short cannot open more than `max` brackets: the common small body costs nothing.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

export const tooDeep = () =>
  new AppError('BAD_REQUEST', `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, { details: { field: 'body' } });

type Done = (err: Error | null, body?: unknown) => void;

/**
 * Makes `app`'s scope parse JSON with Fastify's parser (`__proto__` keys refused, `constructor`
 * keys as `constructorAction` says) behind the depth bound; `check` may refuse what was parsed.
 */
export function useBoundedJsonParser(
  app: FastifyInstance,
  opts: { bodyLimit?: number; constructorAction?: 'error' | 'ignore'; check?: (value: unknown) => Error | undefined } = {},
): void {
  const parse = app.getDefaultJsonParser('error', opts.constructorAction ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', ...(opts.bodyLimit === undefined ? {} : { bodyLimit: opts.bodyLimit }) },
    (request: FastifyRequest, body: string | Buffer, done: Done) => {
      const text = body as string;
      if (nestsDeeperThan(text)) return done(tooDeep());
      parse(request, text, (err, value) => {
        if (err) return done(err);
        const refused = opts.check?.(value);
        return refused ? done(refused) : done(null, value);
      });
    },
  );
}
