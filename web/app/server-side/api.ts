// The server-side page's reads and writes (docs/gateway.md): the org's sender domains and their
// verification, and the SMTP gateway's settings (null until it is set up), credentials and test.
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type GatewayDomain = Schemas['GatewayDomain'];
export type GatewaySettings = Schemas['GatewaySettings'];
export interface SettingsInput {
  nextHop: { host: string; port: number; secure: boolean };
  allowedNetworks: { cidr: string; shared: boolean }[];
  stampInternal: boolean;
  m365TenantId: string | null;
}

export function useDomains() {
  const { api, orgId } = useOrg();
  return useQuery(['gateway', orgId, 'domains'], async () => (await call(api.GET('/v1/orgs/{orgId}/domains', { params: { path: { orgId } } }))).items);
}

export function useGateway() {
  const { api, orgId } = useOrg();
  return useQuery(['gateway', orgId, 'settings'], async (): Promise<GatewaySettings | null> => {
    try {
      return await call(api.GET('/v1/orgs/{orgId}/integrations/gateway', { params: { path: { orgId } } }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  });
}

export function useGatewayActions() {
  const { api, orgId } = useOrg();
  const path = { orgId };
  const refresh = () => invalidate(['gateway', orgId]);
  return {
    async claim(domain: string) {
      await call(api.POST('/v1/orgs/{orgId}/domains', { params: { path }, body: { domain } }));
      await refresh();
    },
    async verify(domain: string) {
      await call(api.POST('/v1/orgs/{orgId}/domains/{domain}/verify', { params: { path: { orgId, domain } } }));
      await refresh();
    },
    async remove(domain: string) {
      await call(api.DELETE('/v1/orgs/{orgId}/domains/{domain}', { params: { path: { orgId, domain } } }));
      await refresh();
    },
    /** Saves the settings; a new gateway's password comes back this once. */
    async save(body: SettingsInput): Promise<GatewaySettings> {
      const saved = await call(api.PUT('/v1/orgs/{orgId}/integrations/gateway', { params: { path }, body }));
      await refresh();
      return saved;
    },
    async rotatePassword(): Promise<GatewaySettings> {
      const rotated = await call(api.POST('/v1/orgs/{orgId}/integrations/gateway/rotate-password', { params: { path } }));
      await refresh();
      return rotated;
    },
    async test(to: string) {
      const result = await call(api.POST('/v1/orgs/{orgId}/integrations/gateway/test', { params: { path }, body: { to } }));
      await refresh();
      return result;
    },
  };
}

/** `203.0.113.0/24` (owned) or `40.92.0.0/15 shared`, one a line. */
export function parseNetworks(text: string): { cidr: string; shared: boolean }[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [cidr = '', flag] = l.split(/\s+/);
      return { cidr, shared: flag === 'shared' };
    });
}

export const networksText = (networks: { cidr: string; shared: boolean }[]) => networks.map((n) => (n.shared ? `${n.cidr} shared` : n.cidr)).join('\n');
