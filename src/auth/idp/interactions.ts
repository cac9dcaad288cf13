// The sign-in pages behind oidc-provider's interactions: password, then (as needed) a new
// password, TOTP enrolment, a TOTP code. A step in progress is kept in the interaction itself
// (`result.pending`, never `login`), so the provider's resume URL cannot skip a step.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type Provider from 'oidc-provider';
import QRCode from 'qrcode';
import type { SignIn, NextStep } from './sign-in.ts';
import { clientIds } from './provider.ts';
import { enrolPage, errorPage, newPasswordPage, otpPage, signInPage } from './views.ts';
import { MIN_PASSWORD_LENGTH } from '../passwords.ts';
import { MemoryRateLimiter } from '../../ratelimit/memory.ts';
import { accountsRepo } from '../../store/repositories/accounts.ts';
import type { Db } from '../../store/db.ts';

interface Pending {
  accountId: string;
  step: Exclude<NextStep, 'done'>;
  amr: string[];
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

export function interactionRoutes(deps: {
  provider: Provider;
  signIn: SignIn;
  db: Db;
  stage: string;
  authPath: string;
  attemptsPerMinute: number;
}): FastifyPluginAsync {
  const { provider, signIn } = deps;
  const ids = clientIds(deps.stage);
  // Sign-in attempts per client IP (SIGNIN_ATTEMPTS_PER_MINUTE), on top of the per-account lockout.
  const perIp = new MemoryRateLimiter({ rate: deps.attemptsPerMinute / 60, burst: deps.attemptsPerMinute });
  const base = `${deps.authPath}/interaction`;

  return async (app) => {
    await app.register(formbody, { bodyLimit: 16 * 1024 });

    const html = (reply: FastifyReply, body: string, status = 200) =>
      reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

    async function details(request: FastifyRequest, reply: FastifyReply): Promise<Details | undefined> {
      try {
        return await provider.interactionDetails(request.raw, reply.raw);
      } catch {
        html(reply, errorPage('invalid_request', 'This sign-in has expired or was opened in another browser. Start again from the app.'), 400);
        return undefined;
      }
    }

    const pendingOf = (d: Details) => (d.result as { pending?: Pending } | undefined)?.pending;

    async function savePending(d: Details, pending: Pending) {
      d.result = { pending };
      await d.save(Math.max(60, (d.exp ?? 0) - Math.floor(Date.now() / 1000)));
    }

    async function finish(request: FastifyRequest, reply: FastifyReply, d: Details, accountId: string, amr: string[]) {
      const clientId = String(d.params.client_id);
      let grant = d.grantId ? await provider.Grant.find(d.grantId) : undefined;
      if (!grant || grant.accountId !== accountId) grant = new provider.Grant({ accountId, clientId });
      grant.addOIDCScope(String(d.params.scope ?? 'openid'));
      const grantId = await grant.save();
      const to = await provider.interactionResult(
        request.raw,
        reply.raw,
        { login: { accountId, amr, remember: true }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
      return reply.code(303).header('location', to).send();
    }

    async function stepPage(reply: FastifyReply, uid: string, pending: Pending, error?: string, status = 200) {
      if (pending.step === 'otp') return html(reply, otpPage(`${base}/${uid}/otp`, { error }), status);
      if (pending.step === 'new-password') {
        return html(reply, newPasswordPage(`${base}/${uid}/new-password`, { error, minLength: MIN_PASSWORD_LENGTH }), status);
      }
      const secret = await signIn.enrolment(pending.accountId);
      if (!secret) return html(reply, errorPage('login_required', 'The account no longer exists.'), 400);
      const qrDataUrl = await QRCode.toDataURL(secret.uri, { width: 200, margin: 1 });
      return html(reply, enrolPage(`${base}/${uid}/enrol`, { ...secret, qrDataUrl, error }), status);
    }

    /** After a step passed: the next step's page, or the end of the sign-in. */
    async function advance(request: FastifyRequest, reply: FastifyReply, d: Details, accountId: string, amr: string[]) {
      const account = await accountsRepo.byId(deps.db, accountId);
      if (!account) return html(reply, errorPage('login_required', 'The account no longer exists.'), 400);
      const next = amr.includes('otp') && !account.passwordMustChange ? 'done' : signIn.nextStep(account, d.params.client_id === ids.admin);
      if (next === 'done') return finish(request, reply, d, accountId, amr);
      await savePending(d, { accountId, step: next, amr });
      return reply.code(303).header('location', `${base}/${d.uid}`).send();
    }

    const clientName = (d: Details) => (d.params.client_id === ids.admin ? 'the staff admin app' : 'Signature Service');

    app.get<{ Params: { uid: string } }>(`${base}/:uid`, async (request, reply) => {
      const d = await details(request, reply);
      if (!d) return reply;
      if (d.prompt.name === 'consent' && d.session?.accountId) {
        // First-party clients: consent is implied once the user has signed in.
        return finish(request, reply, d, d.session.accountId, (d.session as { amr?: string[] }).amr ?? ['pwd']);
      }
      const pending = pendingOf(d);
      if (pending) return stepPage(reply, d.uid, pending);
      return html(reply, signInPage(`${base}/${d.uid}/login`, { client: clientName(d) }));
    });

    app.post<{ Params: { uid: string }; Body: { username?: string; password?: string } }>(`${base}/:uid/login`, async (request, reply) => {
      const d = await details(request, reply);
      if (!d) return reply;
      const action = `${base}/${d.uid}/login`;
      const email = String(request.body?.username ?? '').trim();
      if (!perIp.take(request.ip).allowed) {
        return html(reply, signInPage(action, { client: clientName(d), email, error: 'Too many attempts from your network. Wait a minute and try again.' }), 429);
      }
      const kind = d.params.client_id === ids.admin ? 'staff' : 'user';
      const account = email ? await signIn.password(kind, email, String(request.body?.password ?? '')) : undefined;
      if (!account) {
        return html(reply, signInPage(action, { client: clientName(d), email, error: 'Incorrect email or password.' }), 401);
      }
      return advance(request, reply, d, account.id, ['pwd']);
    });

    /**
     * A step after the password: it must be the pending one (else back to the page of the one that
     * is); `run` answers the account when the step passed, or why it did not.
     */
    function stepRoute(
      step: Pending['step'],
      run: (pending: Pending, form: Record<string, unknown>) => Promise<{ accountId: string; amr: string[] } | { error: string; status: number }>,
    ) {
      app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(`${base}/:uid/${step}`, async (request, reply) => {
        const d = await details(request, reply);
        if (!d) return reply;
        const pending = pendingOf(d);
        if (pending?.step !== step) return reply.code(303).header('location', `${base}/${d.uid}`).send();
        const result = await run(pending, request.body ?? {});
        if ('error' in result) return stepPage(reply, d.uid, pending, result.error, result.status);
        return advance(request, reply, d, result.accountId, result.amr);
      });
    }

    stepRoute('otp', async (pending, form) => {
      const account = await signIn.otp(pending.accountId, String(form.otp ?? ''));
      return account ? { accountId: account.id, amr: [...pending.amr, 'otp'] } : { error: 'That code is not valid. Try the current one.', status: 401 };
    });

    stepRoute('enrol', async (pending, form) => {
      const account = await signIn.confirmEnrolment(pending.accountId, String(form.otp ?? ''));
      return account ? { accountId: account.id, amr: [...pending.amr, 'otp'] } : { error: 'That code is not valid. Check the app and try again.', status: 401 };
    });

    stepRoute('new-password', async (pending, form) => {
      const result = await signIn.changePassword(pending.accountId, String(form.new_password ?? ''));
      return typeof result === 'string' ? { error: result, status: 400 } : { accountId: result.id, amr: pending.amr };
    });
  };
}
