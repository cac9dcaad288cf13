// What every page of an app reaches through useApp(): the runtime config, the session, the one API
// client, and who is signed in (org, role) as the ID token says.
import { createContext, useContext } from 'react';
import type { Limits, RuntimeConfig } from './config.ts';
import type { Session } from './auth/session.ts';
import type { Api } from './api/client.ts';

export type OrgRole = 'member' | 'admin' | 'owner';

export interface Me {
  userId: string;
  email: string;
  name: string;
  /** Absent for staff (the admin app). */
  orgId?: string;
  role: OrgRole | 'super-admin';
}

export interface AppContextValue {
  config: RuntimeConfig;
  session: Session;
  api: Api;
  me: Me;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside the app');
  return value;
}

/** The service's limits (from the runtime config the server hands the app). */
export function useLimits(): Limits {
  return useApp().config.limits;
}

const RANK = { member: 0, admin: 1, owner: 2, 'super-admin': 3 } as const;

/** Whether the signed-in person's role is at least `min` (what the UI offers; the API still decides). */
export function atLeast(me: Me, min: keyof typeof RANK): boolean {
  return RANK[me.role] >= RANK[min];
}

/** An org member's context (the dashboard's pages), or an error when the token has no org. */
export function useOrg(): AppContextValue & { orgId: string } {
  const app = useApp();
  if (!app.me.orgId) throw new Error('This page needs an organisation account.');
  return { ...app, orgId: app.me.orgId };
}
