// Route-level hooks, listed in order on each route: authenticate (401), then authorize against
// the org in the path (403). They run in onRequest, before body parsing and validation, so an
// anonymous or foreign caller learns nothing about what a valid request would look like.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden } from '../http/errors.ts';
import type { Authenticate } from './authenticate.ts';
import { authorize, type Action, type EffectiveRole } from './policy.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    access?: Access;
  }
}

export interface Access {
  orgId: string;
  principal: Principal;
  role: EffectiveRole;
  /** The user id of the caller, when the caller is a user (members may act on themselves). */
  userId: string | undefined;
}

export interface Guards {
  authenticate: onRequestAsyncHookHandler;
  /** Authenticates, then requires `action` on the org named by the path's `orgId`. */
  org(action: Action): onRequestAsyncHookHandler[];
}

export function createGuards(authenticateHeaders: Authenticate): Guards {
  const authenticate: onRequestAsyncHookHandler = async (request) => {
    request.principal = await authenticateHeaders(request.headers);
  };
  return {
    authenticate,
    org(action) {
      const check: onRequestAsyncHookHandler = async (request) => {
        const principal = request.principal as Principal;
        const orgId = (request.params as { orgId?: string }).orgId ?? '';
        const decision = authorize(principal, orgId, action);
        if (!decision.allowed) throw forbidden(decision.reason);
        request.access = {
          orgId,
          principal,
          role: decision.role,
          userId: principal.kind === 'user' ? principal.userId : undefined,
        };
      };
      return [authenticate, check];
    },
  };
}

/** The access a guard established; routes behind `guards.org` always have one. */
export function accessOf(request: FastifyRequest): Access {
  if (!request.access) throw new Error('route has no org guard');
  return request.access;
}

export function writeContext(request: FastifyRequest) {
  const access = accessOf(request);
  return { orgId: access.orgId, principal: access.principal, correlationId: request.id };
}
