// Who is calling. Authentication produces one of these; the policy decides what it may do.
import type { ActorType, OrgRole } from '../store/schema.ts';

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
