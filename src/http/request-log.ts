import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.ts';

// Query parameters that carry credentials: in OAuth and OpenID Connect URLs (a logout link holds
// a live ID token; a callback an authorization code), and the Outlook add-in's files (`?key=`, the
// org's add-in key, which the manifest writes into their URLs).
const SECRET_PARAMS = new Set(['key', 'id_token_hint', 'id_token', 'access_token', 'refresh_token', 'token', 'code', 'code_verifier', 'client_secret', 'xsrf']);
// Anything shaped like a JWT (or JWE): base64url JSON header "eyJ…", then dot-separated parts.
const JWT_LIKE = /eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){1,4}/g;
// An Outlook add-in key (src/outlook/addin-key.ts: `oak_` and base64url) under any name, or in a path.
const ADDIN_KEY_LIKE = /oak_[A-Za-z0-9_-]{16,}/g;
const REDACTED = '[redacted]';
const redactValues = (s: string) => s.replace(JWT_LIKE, REDACTED).replace(ADDIN_KEY_LIKE, REDACTED);

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL as it may be logged: credentials in the query, and JWT-looking values and add-in keys anywhere, replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = redactValues(q === -1 ? url : url.slice(0, q));
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq !== -1 && SECRET_PARAMS.has(paramName(pair.slice(0, eq)))) return `${pair.slice(0, eq)}=${REDACTED}`;
      return redactValues(pair);
    })
    .join('&');
  return `${path}?${query}`;
}

/** The one log line per request (info level), labelled with the correlation id by the request's logger. */
export function logCompleted(request: FastifyRequest, reply: FastifyReply): void {
  // Below `info` there is no line, so nothing to redact or build. (The onResponse hook that calls
  // this on every request is registered only at `info`; answerAndLinger calls it at any level.)
  if (!(request.log as Logger).isLevelEnabled('info')) return;
  // Requests handed to the identity provider had their mount path moved to originalUrl.
  const url = (request.raw as { originalUrl?: string }).originalUrl ?? request.url;
  request.log.info({ method: request.method, url: redactUrl(url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
}
