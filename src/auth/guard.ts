// Route-level hooks, listed in order on each route: authenticate (401), then authorize against
// the org in the path (403). They run in onRequest, before body parsing and validation, so an
// anonymous or foreign caller learns nothing about what a valid request would look like.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError, forbidden } from '../errors.ts';
import { graceExpired, planFacts } from '../billing/gate.ts';
import type { OrgService } from '../orgs/service.ts';
import type { Authenticate } from './authenticate.ts';
import { authorize, enforce, type Access, type Action } from './policy.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    access?: Access;
  }
}

export interface Guards {
  /**
   * Authenticates, then requires `action` on the org named by the path's `orgId`; a write is
   * refused with 402 once the org's grace period has ended (spec section 3 rule 2).
   */
  org(action: Action, opts?: { write?: boolean }): onRequestAsyncHookHandler;
  /** Authenticates, then requires a staff ID token (super-admin). */
  staff(): onRequestAsyncHookHandler;
}

// Each guard is one hook doing its steps in turn: every hook costs on every request of the route.
export function createGuards(authenticate: Authenticate, deps: { orgs: OrgService; clock: () => Date }): Guards {
  return {
    org(action, opts) {
      return async (request) => {
        const principal = await authenticate(request.headers);
        request.principal = principal;
        const orgId = (request.params as { orgId?: string }).orgId ?? '';
        const decision = authorize(principal, orgId, action);
        enforce(decision);
        request.access = {
          orgId,
          principal,
          role: decision.role,
          userId: principal.kind === 'user' ? principal.userId : undefined,
        };
        if (!opts?.write) return;
        const org = await deps.orgs.require(orgId);
        if (graceExpired(planFacts(org), deps.clock())) {
          throw new AppError(
            'PAYMENT_REQUIRED',
            `The subscription is ${org.subscription_status} and its grace period ended at ${org.grace_period_ends_at?.toISOString()}: writes are blocked until the subscription is paid. Reads still work; see GET /v1/orgs/{orgId}/plan-status.`,
            { details: { blockedBy: 'grace_expired', gracePeriodEndsAt: org.grace_period_ends_at?.toISOString() } },
          );
        }
      };
    },
    staff() {
      return async (request) => {
        request.principal = await authenticate(request.headers);
        if (request.principal.kind !== 'staff') throw forbidden('This route is for staff (a super-admin ID token of the admin client).');
      };
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
