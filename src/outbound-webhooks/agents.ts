// Kept-alive connections per endpoint: each endpoint has HTTP agents of its own, at most CAP sockets
// (its deliveries in flight), so endpoints on the same host and port never wait for one another's
// sockets. (One agent shared by every endpoint, 32 sockets per host and port, let one org's endpoints
// that never answer hold every socket to a host another org's endpoint lives on as well: its requests
// waited in the agent and timed out.) An agent no drain uses is closed after AGENT_IDLE_MS.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

export interface EndpointAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

const AGENT_IDLE_MS = 30_000;

export function createAgentPool(maxSockets: number) {
  const pool = new Map<string, { agents: EndpointAgents; users: number; idle?: NodeJS.Timeout | undefined }>();
  const destroy = (endpointId: string) => {
    const entry = pool.get(endpointId);
    if (!entry || entry.users > 0) return;
    pool.delete(endpointId);
    entry.agents.http.destroy();
    entry.agents.https.destroy();
  };
  return {
    /** The endpoint's agents, for one drain; give them back with `release`. */
    acquire(endpointId: string): EndpointAgents {
      let entry = pool.get(endpointId);
      if (!entry) {
        entry = {
          agents: { http: new HttpAgent({ keepAlive: true, maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets }) },
          users: 0,
        };
        pool.set(endpointId, entry);
      }
      clearTimeout(entry.idle);
      entry.idle = undefined;
      entry.users++;
      return entry.agents;
    },
    release(endpointId: string): void {
      const entry = pool.get(endpointId);
      if (!entry) return;
      entry.users = Math.max(0, entry.users - 1);
      if (entry.users === 0) entry.idle = setTimeout(() => destroy(endpointId), AGENT_IDLE_MS).unref();
    },
    close(): void {
      for (const [endpointId, entry] of pool) {
        clearTimeout(entry.idle);
        entry.users = 0;
        destroy(endpointId);
      }
    },
  };
}
