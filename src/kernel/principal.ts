// Who is calling. Authentication produces one of these; the policy decides what it may do.
import type { IncomingHttpHeaders } from 'node:http';

/** A user's role in an org (the `users.role` column). */
export type OrgRole = 'member' | 'admin' | 'owner';

/** Who an audit entry names as its actor (the `audit_entries.actor_type` column). */
export type ActorType = 'user' | 'apiKey' | 'staff' | 'paymentProvider' | 'system';

export type Principal =
  | { kind: 'apiKey'; keyId: string; orgId: string }
  | { kind: 'user'; userId: string; orgId: string; role: OrgRole }
  | { kind: 'staff'; userId: string };

export function actorOf(principal: Principal): { type: ActorType; id: string } {
  switch (principal.kind) {
    case 'apiKey':
      return { type: 'apiKey', id: principal.keyId };
    case 'user':
      return { type: 'user', id: principal.userId };
    case 'staff':
      return { type: 'staff', id: principal.userId };
  }
}

/** Turns a request's credentials into a Principal, or refuses with 401 (auth/authenticate.ts makes one). */
export type Authenticate = (headers: IncomingHttpHeaders) => Promise<Principal>;
