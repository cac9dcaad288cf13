// A real DNS server on localhost (dns2, UDP) that answers TXT and A questions from tables the test
// fills: the service reaches it through DNS_SERVERS, as production reaches its resolvers.
import dns2 from 'dns2';

export interface TestDns {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  server: string;
  /** The TXT values answered for a name (replacing any before). */
  setTxt(name: string, values: string[]): void;
  /** The IPv4 addresses answered for a name (replacing any before). */
  setA(name: string, addresses: string[]): void;
  close(): Promise<void>;
}

export async function startDns(): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const a = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const name = question?.name.toLowerCase() ?? '';
      if (question?.type === Packet.TYPE.TXT) {
        for (const value of txt.get(name) ?? []) {
          response.answers.push({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data: value } as never);
        }
      }
      if (question?.type === Packet.TYPE.A) {
        for (const address of a.get(name) ?? []) {
          response.answers.push({ name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address } as never);
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    server: `127.0.0.1:${addresses.udp?.port}`,
    setTxt: (name, values) => txt.set(name.toLowerCase(), values),
    setA: (name, addresses) => a.set(name.toLowerCase(), addresses),
    close: () => server.close(),
  };
}
