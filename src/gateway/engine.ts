// One message through the gateway (docs/gateway.md, "What it does" and "Delivery"): which org
// the connection proved, whether its domains allow the sender, whether to stamp, the stamping,
// and the relay to the org's next hop, whose answer becomes the client's. Nothing is queued here:
// the client hears the next hop's answer (a 4xx stays a 4xx, and the sender retries).
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { GatewayOutcome, GatewaySettingsRow } from '../store/schema.ts';
import type { Logger } from '../log.ts';
import type { StamperHooks, StampResult } from './mime.ts';
import { noFacts, type MessageFacts } from './facts.ts';
import { Spool } from './spool.ts';
import type { Relay } from './relay.ts';

/** What a connection proved before DATA (listener.ts). */
export interface ConnectionProof {
  remoteAddress: string;
  helo: string;
  /** The org of the AUTH credentials, or of the SNI name `<gatewayId>.<GATEWAY_DOMAIN>`. */
  provenOrg: string | undefined;
  /** Orgs whose allowed networks hold the address: an owned range names the org; a shared one does not. */
  networks: { orgId: string; shared: boolean }[];
}

export interface Envelope {
  /** The reverse-path; '' for the null sender `<>`. */
  from: string;
  to: string[];
  /** The client asked for `BODY=8BITMIME`: the next hop is asked too. */
  use8BitMime: boolean;
  /** The client gave `SMTPUTF8` (UTF-8 in addresses or header fields): the next hop is given it too. */
  smtputf8?: boolean;
}

/** An SMTP answer: a code and its text. */
export interface Reply {
  code: number;
  message: string;
  outcome: GatewayOutcome;
  orgId: string | undefined;
}

export interface EngineDeps {
  logger: Logger;
  clock: () => Date;
  hostname: string;
  failClosed: boolean;
  relay: Relay;
  /** The lookups the engine needs, each scoped as its name says. */
  lookups: {
    settings(orgId: string): Promise<GatewaySettingsRow | undefined>;
    orgsOfTenant(tenantId: string): Promise<string[]>;
    verifiedDomains(orgId: string): Promise<string[]>;
    verifiedOwner(domain: string): Promise<string | undefined>;
    liveUser(orgId: string, email: string): Promise<{ id: string } | undefined>;
  };
  /** The signature of a user for a message (the template the org's rules pick; the reply template for a reply). */
  signatureFor(orgId: string, userId: string, opts: { reply: boolean }): Promise<{ html: string; text: string }>;
  record(event: {
    orgId: string | undefined;
    outcome: GatewayOutcome;
    reason: string;
    correlationId: string;
    remoteAddress: string;
    sender: string;
  }): Promise<void>;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

class Refusal extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

// The MIME parsers (mailsplit, iconv-lite, libqp: ~2.6 MB of heap) load with the first message
// read, not with the service: an instance that runs no gateway never holds them.
let mime: Promise<typeof import('./mime.ts')> | undefined;
const loadMime = () => (mime ??= import('./mime.ts'));

export function createEngine(deps: EngineDeps) {
  const { logger, lookups } = deps;

  /**
   * The org the connection and the message's headers prove, or a refusal. An owned range names its
   * org only when no other org lists the address too (docs/gateway.md: "a range the org declared
   * its own, and no other org's"): anyone can list a range, so an owned claim on a range others
   * list (a provider's shared range, say) must not outrank the tenant header that names one of them.
   */
  async function orgOf(proof: ConnectionProof, facts: MessageFacts): Promise<string> {
    if (proof.provenOrg) return proof.provenOrg;
    const only = proof.networks.length === 1 ? proof.networks[0] : undefined;
    if (only && !only.shared) return only.orgId;
    if (facts.tenantId) {
      const tenantOrgs = new Set(await lookups.orgsOfTenant(facts.tenantId));
      const match = proof.networks.filter((n) => tenantOrgs.has(n.orgId));
      if (match.length === 1) return match[0]!.orgId;
    }
    throw new Refusal(
      550,
      '5.7.1 This connection does not prove its organisation: authenticate, connect to your own smart-host name, or (Microsoft 365) set the tenant id',
    );
  }

  /**
   * The envelope sender must be the org's; no address may name another org's domain. The null
   * sender `<>` (a bounce, a read receipt) has no domain to check: its `From` must then be in one of
   * the org's verified domains instead, so `MAIL FROM:<>` is no way around the sender check.
   */
  async function checkDomains(orgId: string, envelope: Envelope, facts: MessageFacts): Promise<void> {
    const ours = new Set(await lookups.verifiedDomains(orgId));
    if (envelope.from === '' && !(facts.from && ours.has(domainOf(facts.from)))) {
      throw new Refusal(550, '5.7.1 A message with the null sender <> must have a From address in a verified domain of this organisation');
    }
    if (envelope.from !== '' && !ours.has(domainOf(envelope.from))) {
      const owner = await lookups.verifiedOwner(domainOf(envelope.from));
      throw new Refusal(
        550,
        owner ? '5.7.1 The sender domain belongs to another organisation' : '5.7.1 The sender domain is not verified for this organisation',
      );
    }
    // Every mailbox of every From field: a second field or a list must not carry another org's name.
    for (const domain of new Set(facts.fromAddresses.map(domainOf))) {
      if (ours.has(domain)) continue;
      const owner = await lookups.verifiedOwner(domain);
      if (owner && owner !== orgId) throw new Refusal(550, '5.7.1 The From domain belongs to another organisation');
    }
  }

  /** Why the message passes unstamped, or undefined to stamp it for the user. */
  async function decide(orgId: string, settings: GatewaySettingsRow, envelope: Envelope, facts: MessageFacts): Promise<{ pass: string } | { userId: string }> {
    if (facts.alreadyStamped) return { pass: 'already stamped' };
    if (facts.untouchable) return { pass: facts.untouchable };
    const user = facts.from ? await lookups.liveUser(orgId, facts.from) : undefined;
    if (!user) return { pass: 'sender is not a user' };
    if (!settings.stamp_internal) {
      const ours = new Set(await lookups.verifiedDomains(orgId));
      if (envelope.to.every((to) => ours.has(domainOf(to)))) return { pass: 'internal' };
    }
    return { userId: user.id };
  }

  function prefix(orgId: string, proof: ConnectionProof, correlationId: string, state: 'stamped' | 'passed' | undefined): Buffer {
    const received = `Received: from ${proof.helo.replace(/[^\x21-\x7e]/g, '') || 'unknown'} ([${proof.remoteAddress}])\r\n\tby ${deps.hostname} (sigsvc gateway) with ESMTP id ${correlationId};\r\n\t${deps.clock().toUTCString()}\r\n`;
    return Buffer.from(state ? `${received}X-Sigsvc-Stamped: ${orgId}; ${state}\r\n` : received);
  }

  /** The decision the root's header fields allow: the org, its settings, and whether to stamp (or a refusal). */
  async function decideEarly(proof: ConnectionProof, envelope: Envelope, facts: MessageFacts, found: { orgId?: string }) {
    const orgId = await orgOf(proof, facts);
    found.orgId = orgId;
    const settings = await lookups.settings(orgId);
    if (!settings) throw new Refusal(550, '5.7.1 This organisation has no gateway settings');
    await checkDomains(orgId, envelope, facts);
    return { orgId, settings, decision: await decide(orgId, settings, envelope, facts) };
  }

  /**
   * One pass over the message: Splitter, stamper (which asks for the decision when the root's
   * header fields are read), Joiner, into `out`. Nothing throws here: a Splitter failure is the
   * message's MIME (`malformed`), any other a failure to stamp.
   */
  async function readAndStamp(source: Readable, facts: MessageFacts, hooks: StamperHooks, out: Spool) {
    const { Joiner, SPLIT_OPTIONS, Splitter, stamper } = await loadMime();
    const splitter = new Splitter(SPLIT_OPTIONS);
    let malformed: Error | undefined;
    (splitter as unknown as Readable).once('error', (err: Error) => (malformed = err));
    const stamping = stamper(facts, hooks);
    try {
      const joiner = new Joiner();
      for await (const batch of batched(joiner, pipeline(source, splitter, stamping, joiner))) await out.write(batch);
      await out.end();
      return { result: stamping.result(), malformed };
    } catch (err) {
      return { result: malformed ? stamping.result() : ({ state: 'failed', error: err as Error } as StampResult), malformed };
    }
  }

  /** What the message's pass came to: the outcome and its reason, or (fail-closed) the refusal. */
  function outcomeOf(
    decision: { pass: string } | { userId: string },
    result: StampResult,
    log: Logger,
  ): { outcome: GatewayOutcome; reason: string } | { refusal: Omit<Reply, 'orgId'>; reason: string } {
    if ('pass' in decision) return { outcome: 'passed', reason: decision.pass };
    if (result.state === 'stamped') return { outcome: 'stamped', reason: 'stamped' };
    if (result.state === 'already-signed') return { outcome: 'passed', reason: 'signature already present' };
    if (result.state === 'passed') return { outcome: 'passed', reason: result.reason ?? 'nothing to stamp' };
    log.warn({ err: result.error }, 'stamping failed');
    if (deps.failClosed) {
      return {
        refusal: { code: 451, message: '4.3.0 The signature could not be added; try again later', outcome: 'failed' },
        reason: `stamping failed: ${result.error.message}`,
      };
    }
    return { outcome: 'failed', reason: `stamping failed, sent unstamped: ${result.error.message}` };
  }

  return {
    /** At MAIL FROM, for a connection that proved its org: the refusal its sender earns, if any. */
    async refuseSender(orgId: string, from: string, remoteAddress: string): Promise<{ code: number; message: string } | undefined> {
      // The null sender is checked after DATA, against the message's From.
      if (from === '') return undefined;
      try {
        await checkDomains(orgId, { from, to: [], use8BitMime: false }, noFacts());
        return undefined;
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        const correlationId = randomUUID();
        logger.info({ correlationId, orgId, remoteAddress, sender: from, outcome: 'refused', code: err.code, reason: err.message }, 'gateway message');
        await deps.record({ orgId, outcome: 'refused', reason: `MAIL FROM: ${err.message}`, correlationId, remoteAddress, sender: from });
        return { code: err.code, message: err.message };
      }
    },

    /** Handles one received message: the reply the client gets. */
    async handle(proof: ConnectionProof, envelope: Envelope, message: Spool, correlationId: string): Promise<Reply> {
      const log = logger.child({ correlationId, remoteAddress: proof.remoteAddress, sender: envelope.from });
      // The org the connection proved, once known (a refusal after that is counted for it).
      const found: { orgId?: string } = {};
      const finish = async (reply: Omit<Reply, 'orgId'>, reason: string) => {
        const orgId = found.orgId;
        log.info({ orgId, outcome: reply.outcome, code: reply.code, reason }, 'gateway message');
        await deps
          .record({ orgId, outcome: reply.outcome, reason, correlationId, remoteAddress: proof.remoteAddress, sender: envelope.from })
          .catch((err: unknown) => log.error({ err }, 'gateway count failed'));
        return { ...reply, orgId };
      };
      const facts = noFacts();
      // Asked once, when the root's header fields are read (or after the pass, for a message without one).
      let early: Promise<Settled<Awaited<ReturnType<typeof decideEarly>>>> | undefined;
      const decideOnce = (f: MessageFacts) => (early ??= settle(decideEarly(proof, envelope, f, found)));
      const out = new Spool();
      try {
        const read = await readAndStamp(
          message.open(),
          facts,
          {
            decide: async (f) => {
              const e = await decideOnce(f);
              return e.ok && 'userId' in e.value.decision ? e.value.decision.userId : undefined;
            },
            signature: async (userId) => deps.signatureFor(found.orgId ?? '', userId, { reply: facts.isReply }),
          },
          out,
        );
        // A message with more parts than the splitter reads (mime.ts's maxChildNodes) is valid MIME,
        // only too large to stamp: once its root's header fields decided, it passes as it came.
        const tooManyParts = read.malformed && early !== undefined && isPartLimit(read.malformed) ? read.malformed : undefined;
        if (read.malformed && !tooManyParts) {
          return await finish(
            { code: 550, message: `5.6.0 The message's MIME structure cannot be read (${read.malformed.message})`, outcome: 'refused' },
            'malformed',
          );
        }
        const e = await decideOnce(facts);
        if (!e.ok) {
          if (e.error instanceof Refusal) return await finish({ code: e.error.code, message: e.error.message, outcome: 'refused' }, e.error.message);
          throw e.error;
        }
        const orgId = e.value.orgId;
        const decision = facts.alreadyStamped
          ? { pass: 'already stamped' }
          : tooManyParts
            ? { pass: `too many MIME parts to stamp (${tooManyParts.message})` }
            : facts.untouchable
              ? { pass: facts.untouchable }
              : e.value.decision;
        const stamped = await outcomeOf(decision, read.result, log);
        if ('refusal' in stamped) return await finish(stamped.refusal, stamped.reason);
        const state = facts.alreadyStamped ? undefined : stamped.outcome === 'stamped' ? 'stamped' : 'passed';
        const answer = await deps.relay.send(e.value.settings, envelope, [
          prefix(orgId, proof, correlationId, state),
          stamped.outcome === 'stamped' ? out : message,
        ]);
        // A next hop whose name now leads to a non-public address is refused (relay.ts), not failed.
        if (answer.refused) return await finish({ code: answer.code, message: answer.message, outcome: 'refused' }, answer.refused);
        return await finish(
          { code: answer.code, message: answer.message, outcome: answer.code < 400 ? stamped.outcome : 'failed' },
          answer.code < 400 ? stamped.reason : `next hop answered ${answer.code}`,
        );
      } finally {
        await out.dispose();
      }
    },
  };
}

/** The splitter's limit on the number of MIME nodes (mailsplit's EMAXLEN "child nodes"), not a broken structure. */
const isPartLimit = (err: Error) => (err as { code?: string }).code === 'EMAXLEN' && /child nodes/i.test(err.message);

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

/** The joiner's output (a chunk per line) handed on in batches of 64 KB; the pipeline's failure is rethrown after the last chunk. */
async function* batched(joiner: AsyncIterable<Buffer>, done: Promise<void>) {
  const failure = done.then(
    () => undefined,
    (err: unknown) => err,
  );
  let batch: Buffer[] = [];
  let size = 0;
  for await (const chunk of joiner) {
    batch.push(chunk);
    size += chunk.length;
    if (size >= 64 * 1024) {
      yield Buffer.concat(batch);
      batch = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(batch);
  const err = await failure;
  if (err) throw err;
}

export type Engine = ReturnType<typeof createEngine>;
