// One HTTP attempt of a delivery: a POST to the address target.ts checked (pinned through the
// request's `lookup`, with the URL's host still in the Host header and the TLS server name), no
// redirect followed (a 3xx is an answer like any other, and not a 2xx), the whole exchange within
// the timeout. node:https rather than fetch: fetch cannot be told which address to connect to.
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './target.ts';

export interface SendResult {
  /** The response's status, or null when none came (refused, timed out, TLS error). */
  status: number | null;
  /** The start of the response body, for the delivery log. */
  body: string;
  error: string | null;
}

const BODY_EXCERPT_BYTES = 1024;

export function send(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
  agents?: { http: HttpAgent; https: HttpsAgent },
): Promise<SendResult> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const https = target.url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const req = request(target.url, {
      method: 'POST',
      lookup: pinned,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'signature-service-webhooks/1',
      },
      // A kept-alive socket is reused for the same host and port: it was opened to an address checked then.
      agent: agents ? (https ? agents.https : agents.http) : false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: null, body: '', error: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    const onAbort = () => {
      req.destroy();
      done({ status: null, body: '', error: 'the instance stopped during the attempt' });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => done({ status: null, body: '', error: err.message }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < BODY_EXCERPT_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      const finish = () => done({ status: res.statusCode ?? null, body: Buffer.concat(chunks).subarray(0, BODY_EXCERPT_BYTES).toString('utf8'), error: null });
      res.on('end', finish);
      res.on('error', (err) => done({ status: res.statusCode ?? null, body: '', error: err.message }));
    });
    req.end(body);
  });
}
