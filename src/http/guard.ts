// The authentication and authorization hooks of the org and staff routes, in this order
// (docs/architecture.md, "A request's path"):
// authenticate → throttle → authorize → billing gate (writes) → validate → handler. The scope in
// app.ts adds `authenticate` and the throttle to every route inside it; each route lists the rest
// (`onRequest: [guards.org('user.create'), billing.writeGate]`). They run in onRequest, before body
// parsing and validation, so an anonymous or foreign caller learns nothing about what a valid
// request would look like.
import type { FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { AppError, forbidden, unauthorized } from '../kernel/errors.ts';
import { authorize, enforce, type Access, type Action } from '../kernel/policy.ts';
import type { Authenticate, Principal } from '../kernel/principal.ts';
import { GUARD, type GuardKind } from './openapi.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls, once `authenticate` ran; undefined when the credentials are missing or invalid. */
    principal?: Principal;
    /** Why the credentials were refused: the 401 the authorizing hook answers after the throttle. */
    authFailure?: AppError;
    access?: Access;
  }
}

export interface Guards {
  /**
   * Establishes who calls, and refuses nothing: the throttle that follows must know whether the
   * request is authenticated (stage bucket) or not (the client's own bucket) before the 401.
   */
  authenticate: onRequestAsyncHookHandler;
  /** Requires `action` on the org named by the path's `orgId`: 401 without credentials, 403 without the role. */
  org(action: Action): onRequestHookHandler;
  /** Requires a staff ID token (super-admin): 401 without credentials, 403 for anyone else. */
  staff(): onRequestHookHandler;
}

const principalOf = (request: FastifyRequest): Principal => {
  if (request.principal) return request.principal;
  throw request.authFailure ?? unauthorized();
};

export function createGuards(authenticate: Authenticate): Guards {
  return {
    async authenticate(request) {
      try {
        request.principal = await authenticate(request.headers);
      } catch (err) {
        // Only a refusal of the credentials waits for the throttle; a failing store answers now.
        if (!(err instanceof AppError) || err.code !== 'UNAUTHORIZED') throw err;
        request.authFailure = err;
      }
    },
    // Synchronous callback hooks: they run on every request of their routes and need no promise.
    org(action) {
      return tagged('org', (request, _reply, done) => {
        try {
          const principal = principalOf(request);
          const orgId = (request.params as { orgId?: string }).orgId ?? '';
          const decision = authorize(principal, orgId, action);
          enforce(decision);
          request.access = { orgId, principal, role: decision.role, userId: principal.kind === 'user' ? principal.userId : undefined };
        } catch (err) {
          return done(err as Error);
        }
        done();
      });
    },
    staff() {
      return tagged('staff', (request, _reply, done) => {
        try {
          if (principalOf(request).kind !== 'staff') throw forbidden('This route is for staff (a super-admin ID token of the admin client).');
        } catch (err) {
          return done(err as Error);
        }
        done();
      });
    },
  };
}

/** Marks a guard's hook with the credentials it requires: the OpenAPI document's `security` follows it. */
function tagged(kind: GuardKind, hook: onRequestHookHandler): onRequestHookHandler {
  return Object.assign(hook, { [GUARD]: kind });
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

/** The staff member a route behind `guards.staff()` acts for, with the request's correlation id. */
export function staffContext(request: FastifyRequest): { staffId: string; correlationId: string } {
  const principal = request.principal;
  if (principal?.kind !== 'staff') throw new Error('route has no staff guard');
  return { staffId: principal.userId, correlationId: request.id };
}

/**
 * The billing gate's hooks, which a write route lists after its guard (billing/hooks.ts makes
 * them): declared here, with the guards, so that routes of every capability can name them.
 */
export interface BillingHooks {
  /** 402 PAYMENT_REQUIRED for a write of an org whose grace period has ended; after `guards.org`. */
  writeGate: onRequestHookHandler;
}

/** What the routes of the authenticated scope are given: the guards, and the billing gate for writes (app.ts). */
export interface RouteKit {
  guards: Guards;
  billing: BillingHooks;
}
