// A real HTTP receiver of outbound webhooks on localhost: it records every request, and answers as
// the test says (a status, after a delay, or not at all until released).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: any };
}

export type Answer = { status: number; delayMs?: number } | 'hold';

export interface Receiver {
  url: string;
  received: Received[];
  /** How to answer the n-th request (0-based); the default answers 200. */
  answer: (n: number, r: Received) => Answer;
  /** Answers every held request with 200. */
  release(): void;
  held: number;
  /** Requests whose connection is open now, and the most there ever were at once. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const holding: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 200 }),
    release() {
      for (const res of holding.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    get held() {
      return holding.filter((res) => !res.destroyed && !res.writableEnded).length;
    },
    inFlight: 0,
    maxInFlight: 0,
    close: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = createServer((req, res) => {
    receiver.inFlight++;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, receiver.inFlight);
    res.on('close', () => receiver.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, body, json: JSON.parse(body) };
      const n = receiver.received.length;
      receiver.received.push(r);
      const a = receiver.answer(n, r);
      if (a === 'hold') {
        holding.push(res);
        return;
      }
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.status >= 300 ? 'receiver said no' : 'ok');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
