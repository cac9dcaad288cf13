// The SCIM 2.0 service provider under {base_url}/scim/v2 (RFC 7644; docs/scim.md). Its own scope:
// a per-org bearer token instead of our credentials, a per-org throttle instead of the stage's
// bucket and the quota, bodies and answers in `application/scim+json`, errors in SCIM's shape
// (errors.ts) and never our envelope. Each route: authenticate (the hook), throttle (the hook),
// read the body or query, call the service, answer. Hidden from our OpenAPI document: its contract
// is RFC 7643/7644, served by /ServiceProviderConfig, /ResourceTypes and /Schemas (discovery.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../ratelimit/interface.ts';
import { AppError } from '../kernel/errors.ts';
import { answerFrameworkErrorsUnder } from '../http/error-handler.ts';
import { ScimError } from './errors.ts';
import { groupFilter, userFilter } from './filter.ts';
import { LIST_SCHEMA } from './mapping.ts';
import { MAX_COUNT, type ScimPage, type ScimService } from './service.ts';
import { discovery } from './discovery.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-body.ts';

export const SCIM_CONTENT_TYPE = 'application/scim+json';
/** Where the routes are registered (app.ts): the base URL SCIM clients are given. */
export const SCIM_PREFIX = '/scim/v2';
/**
 * The largest SCIM body. The largest a provider sends is a PUT of a whole group: 10,000 members as
 * Okta sends them ({value, display}) are about 800 KB. Parsing JSON holds the event loop (1 MB:
 * ~20 ms; the API's 5 MB: 80–130 ms on a busy 2-core machine), so no more than that is read.
 */
export const SCIM_BODY_LIMIT_BYTES = 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    scimOrgId?: string;
  }
}

type Query = Record<string, string | undefined>;
type Params = { id: string };

function pageOf(query: Query): ScimPage {
  const int = (v: string | undefined, fallback: number) => {
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    // Safe integers only: a larger startIndex reached the database's OFFSET and failed there (a 500).
    if (!Number.isSafeInteger(n)) throw new ScimError(400, `startIndex and count are integers up to ${Number.MAX_SAFE_INTEGER}.`, 'invalidValue');
    return n;
  };
  // RFC 7644 §3.4.2.4: a startIndex below 1 is 1, a negative count is 0.
  return { startIndex: Math.max(1, int(query.startIndex, 1)), count: Math.min(MAX_COUNT, Math.max(0, int(query.count, 100))) };
}

const listResponse = (page: ScimPage, found: { total: number; resources: unknown[] }) => ({
  schemas: [LIST_SCHEMA],
  totalResults: found.total,
  startIndex: page.startIndex,
  itemsPerPage: found.resources.length,
  Resources: found.resources,
});

/** `excludedAttributes=members` (Entra asks for groups so): the members are left out. */
const withoutMembers = (query: Query) =>
  (query.excludedAttributes ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .includes('members');

export function scimRoutes(deps: { scim: ScimService; limiter: RateLimiter; retryAfterS: number }) {
  const { scim, limiter } = deps;
  return async (app: FastifyInstance) => {
    // A URL the router refuses (a path segment that cannot be decoded) never reaches this scope's
    // error handler: Fastify answers it before routing, so the answer is named here by prefix.
    answerFrameworkErrorsUnder(app.prefix, (_request, reply, message) => {
      reply.code(400).type(SCIM_CONTENT_TYPE).send(new ScimError(400, message).body());
    });
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser([SCIM_CONTENT_TYPE, 'application/json'], { parseAs: 'string', bodyLimit: SCIM_BODY_LIMIT_BYTES }, (_request, body, done) => {
      if (nestsDeeperThan(body as string))
        return done(new ScimError(400, `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, 'invalidSyntax'));
      try {
        done(null, body === '' ? undefined : JSON.parse(body as string));
      } catch {
        done(new ScimError(400, 'The body is not valid JSON.', 'invalidSyntax'));
      }
    });
    app.setErrorHandler((error, request, reply) => {
      const known =
        error instanceof ScimError
          ? error
          : error instanceof AppError && error.code === 'PAYMENT_REQUIRED'
            ? new ScimError(402, error.message)
            : (error as { statusCode?: number }).statusCode === 413
              ? new ScimError(413, `The body is larger than ${SCIM_BODY_LIMIT_BYTES} bytes.`)
              : (error as { statusCode?: number }).statusCode === 415
                ? new ScimError(415, `Send the body as ${SCIM_CONTENT_TYPE}.`)
                : undefined;
      if (!known) request.log.error({ err: error }, 'SCIM request failed');
      const answer = known ?? new ScimError(500, 'The request failed on our side; it may be tried again.');
      return reply.code(answer.status).type(SCIM_CONTENT_TYPE).send(answer.body());
    });
    // The token names the org; the throttle is that org's (SCIM does not count against the quota).
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      const orgId = token ? await scim.orgOfToken(token) : undefined;
      if (!orgId) {
        reply.header('www-authenticate', 'Bearer realm="scim"');
        throw new ScimError(401, 'Missing or invalid SCIM bearer token.');
      }
      const decision = await limiter.take(`scim:${orgId}`);
      if (!decision.allowed) {
        reply.header('retry-after', deps.retryAfterS);
        throw new ScimError(429, `Too many SCIM requests for this organisation: retry in ${deps.retryAfterS} seconds.`);
      }
      request.scimOrgId = orgId;
    });
    app.setNotFoundHandler((request, reply) => {
      reply
        .code(404)
        .type(SCIM_CONTENT_TYPE)
        .send(new ScimError(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}.`).body());
    });
    const orgOf = (request: FastifyRequest) => request.scimOrgId!;
    const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(SCIM_CONTENT_TYPE).send(body);
    const opts = { schema: { hide: true } };

    for (const [path, body] of Object.entries(discovery(scim.baseUrl))) {
      // `::` is a literal colon in a Fastify path (the schema URNs have several).
      app.get(path.replaceAll(':', '::'), opts, async (_request, reply) => send(reply, 200, body));
    }

    app.get<{ Querystring: Query }>('/Users', opts, async (request, reply) => {
      const page = pageOf(request.query);
      return send(reply, 200, listResponse(page, await scim.listUsers(orgOf(request), userFilter(request.query.filter), page)));
    });
    app.get<{ Params: Params }>('/Users/:id', opts, async (request, reply) => send(reply, 200, await scim.getUser(orgOf(request), request.params.id)));
    app.post('/Users', opts, async (request, reply) => {
      const user = await scim.createUser(orgOf(request), request.id, request.body);
      return send(reply.header('location', user.meta.location), 201, user);
    });
    app.put<{ Params: Params }>('/Users/:id', opts, async (request, reply) =>
      send(reply, 200, await scim.replaceUser(orgOf(request), request.id, request.params.id, request.body)),
    );
    app.patch<{ Params: Params }>('/Users/:id', opts, async (request, reply) =>
      send(reply, 200, await scim.patchUser(orgOf(request), request.id, request.params.id, request.body)),
    );
    app.delete<{ Params: Params }>('/Users/:id', opts, async (request, reply) => {
      await scim.deleteUser(orgOf(request), request.id, request.params.id);
      return reply.code(204).send();
    });

    app.get<{ Querystring: Query }>('/Groups', opts, async (request, reply) => {
      const page = pageOf(request.query);
      const found = await scim.listGroups(orgOf(request), groupFilter(request.query.filter), page, !withoutMembers(request.query));
      return send(reply, 200, listResponse(page, found));
    });
    app.get<{ Params: Params; Querystring: Query }>('/Groups/:id', opts, async (request, reply) =>
      send(reply, 200, await scim.getGroup(orgOf(request), request.params.id, !withoutMembers(request.query))),
    );
    app.post('/Groups', opts, async (request, reply) => {
      const group = await scim.createGroup(orgOf(request), request.id, request.body);
      return send(reply.header('location', group.meta.location), 201, group);
    });
    app.put<{ Params: Params }>('/Groups/:id', opts, async (request, reply) =>
      send(reply, 200, await scim.replaceGroup(orgOf(request), request.id, request.params.id, request.body)),
    );
    app.patch<{ Params: Params }>('/Groups/:id', opts, async (request, reply) =>
      send(reply, 200, await scim.patchGroup(orgOf(request), request.id, request.params.id, request.body)),
    );
    app.delete<{ Params: Params }>('/Groups/:id', opts, async (request, reply) => {
      await scim.deleteGroup(orgOf(request), request.id, request.params.id);
      return reply.code(204).send();
    });
  };
}
