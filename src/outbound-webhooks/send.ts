// One HTTP attempt of a delivery: a POST to the address target.ts checked (pinned through the
// request's `lookup`, with the URL's host still in the Host header and the TLS server name), no
// redirect followed (a 3xx is an answer like any other, and not a 2xx).
//
// The status line decides (docs/webhooks.md, "Retries"): an answer's status within the timeout is
// the outcome, whatever its body does after. The body is read only for the log's excerpt: its first
// BODY_EXCERPT_BYTES, for at most BODY_WAIT_MS after the status (and never past the timeout); then
// the response is dropped (its socket closed unless the body had ended). The timeout counts from
// when the request has a socket (connecting included), not while it waits in the agent for one.
// node:https rather than fetch: fetch cannot be told which address to connect to.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './target.ts';
import type { EndpointAgents } from './agents.ts';

export interface SendResult {
  /** The response's status, or null when none came (refused, timed out, TLS error). */
  status: number | null;
  /** The start of the response body, for the delivery log. */
  body: string;
  error: string | null;
}

const BODY_EXCERPT_BYTES = 1024;
/** How long the body's excerpt is waited for once the status came. */
const BODY_WAIT_MS = 1_000;

export function send(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
  agents?: EndpointAgents,
): Promise<SendResult> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const https = target.url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  const seconds = timeoutMs / 1000;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const timers: NodeJS.Timeout[] = [];
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
      // An unfinished body is not waited for: the socket goes (a finished one returns to the agent).
      if (response && !response.complete) response.destroy();
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
      // The endpoint's own agent (agents.ts): a kept-alive socket is reused for the same endpoint,
      // host and port only, and it was opened to an address checked then.
      agent: agents ? (https ? agents.https : agents.http) : false,
    });
    const after = (ms: number, f: () => void) => timers.push(setTimeout(f, ms));
    const fail = (error: string) => {
      req.destroy();
      done({ status: null, body: '', error });
    };
    // Counted apart: a request that never gets a socket of its endpoint's agent (it has one socket
    // per delivery in flight, so this is only a guard) fails as such, not as the receiver's silence.
    after(timeoutMs, () => {
      if (!req.socket) fail(`no connection to the endpoint could start within ${seconds} s`);
    });
    req.once('socket', () => {
      const started = performance.now();
      after(timeoutMs, () => (response ? finish() : fail(`no answer within ${seconds} s`)));
      req.once('response', (res: IncomingMessage) => {
        response = res;
        after(Math.min(BODY_WAIT_MS, Math.max(0, timeoutMs - (performance.now() - started))), finish);
      });
    });
    const onAbort = () => fail('the instance stopped during the attempt');
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => (response ? finish() : done({ status: null, body: '', error: err.message })));
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () =>
      done({ status: response?.statusCode ?? null, body: Buffer.concat(chunks).subarray(0, BODY_EXCERPT_BYTES).toString('utf8'), error: null });
    req.on('response', (res: IncomingMessage) => {
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= BODY_EXCERPT_BYTES) finish();
      });
      res.on('end', finish);
      // The status came: a body cut short is still that answer.
      res.on('error', finish);
      res.on('aborted', finish);
    });
    req.end(body);
  });
}
