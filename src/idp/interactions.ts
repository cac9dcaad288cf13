// The sign-in pages behind oidc-provider's interactions: password, then (as needed) a new
// password, TOTP enrolment, a TOTP code. A step in progress is kept in the interaction itself
// (`result.pending`, never `login`), so the provider's resume URL cannot skip a step.
// Also here, in front of the provider: the per-address throttle of `/oauth2/authorize`, and
// Cognito's form of logout. The pages only call the sign-in service; it owns reads and writes.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type Provider from 'oidc-provider';
import QRCode from 'qrcode';
import type { SignIn, NextStep } from './sign-in.ts';
import { clientIds, INTERACTION_TTL_S } from './provider.ts';
import { handToProvider, pinOrigin } from './hooks.ts';
import { enrolPage, errorPage, newPasswordPage, otpPage, PAGE_HEADERS, signedOutPage, signInPage } from './views.ts';
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { MemoryRateLimiter } from '../ratelimit/memory.ts';
import { isStorable } from '../lib/text.ts';

interface Pending {
  accountId: string;
  step: Exclude<NextStep, 'done'>;
  amr: string[];
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Longest value a form field may carry (an email is at most 254; passwords are capped like this by most services). */
const MAX_FIELD = 1024;
/** A form value the pages accept: a string without NULs (the database refuses them), of sane length. */
const fieldProblem = (value: unknown): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return 'The form was not filled in as expected.';
  if (!isStorable(value)) return 'The form holds characters that are not allowed.';
  if (value.length > MAX_FIELD) return 'A field of the form is too long.';
  return undefined;
};

export function interactionRoutes(deps: {
  provider: Provider;
  signIn: SignIn;
  clock: () => Date;
  stage: string;
  authUrl: string;
  authPath: string;
  attemptsPerMinute: number;
}): FastifyPluginAsync {
  const { provider, signIn } = deps;
  const ids = clientIds(deps.stage);
  // SIGNIN_ATTEMPTS_PER_MINUTE per client address, on top of the per-account lockout: one bucket
  // for the password and code steps together (each is a guess), one for starting sign-ins.
  const perAddress = new MemoryRateLimiter(
    { rate: deps.attemptsPerMinute / 60, burst: deps.attemptsPerMinute },
    () => deps.clock().getTime(),
  );
  const base = `${deps.authPath}/interaction`;
  const toProvider = handToProvider(provider, deps.authUrl);

  return async (app) => {
    // The sign-in pages answer HTML to a browser: they are not API operations, so every page of
    // this plugin stays out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(formbody, { bodyLimit: 16 * 1024 });

    const html = (reply: FastifyReply, body: string, status = 200) =>
      reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

    const TOO_MANY = 'Too many attempts from your network. Wait a minute and try again.';
    // An empty bucket holds a token again within one refill interval (60 s / the limit).
    const retryAfterS = String(Math.max(1, Math.ceil(60 / deps.attemptsPerMinute)));
    /** Takes a token from the address's bucket; when there is none, sets Retry-After and answers false. */
    function allowed(request: FastifyRequest, reply: FastifyReply, bucket: 'signin' | 'authorize'): boolean {
      const decision = perAddress.take(`${bucket}:${request.ip}`);
      if (!decision.allowed) reply.header('retry-after', retryAfterS);
      return decision.allowed;
    }

    async function details(request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply): Promise<Details | undefined> {
      const expired = () =>
        html(reply, errorPage('invalid_request', 'This sign-in has expired or was opened in another browser. Start again from the app.'), 400);
      try {
        const d = await provider.interactionDetails(request.raw, reply.raw);
        // The page's address must name the interaction of this browser's cookie.
        if (d.uid !== request.params.uid) return void expired();
        return d;
      } catch {
        return void expired();
      }
    }

    const pendingOf = (d: Details) => (d.result as { pending?: Pending } | undefined)?.pending;

    // Each step passed gives the sign-in the interaction's lifetime again (it has at most three).
    async function savePending(d: Details, pending: Pending) {
      d.result = { pending };
      await d.save(INTERACTION_TTL_S);
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
        // The sign-in's time by the service's clock (not the library's), which the 7-day limit of
        // staff sign-ins (provider.ts) measures from.
        { login: { accountId, amr, remember: true, ts: Math.floor(deps.clock().getTime() / 1000) }, consent: { grantId } },
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
      const account = await signIn.account(accountId);
      if (!account) return html(reply, errorPage('login_required', 'The account no longer exists.'), 400);
      const next = amr.includes('otp') && !account.passwordMustChange ? 'done' : signIn.nextStep(account, d.params.client_id === ids.admin);
      if (next === 'done') return finish(request, reply, d, accountId, amr);
      await savePending(d, { accountId, step: next, amr });
      return reply.code(303).header('location', `${base}/${d.uid}`).send();
    }

    const clientName = (d: Details) => (d.params.client_id === ids.admin ? 'the staff admin app' : 'Signature Service');
    // "Forgot your password?" (src/people/) resets org users' passwords: the customer client's page links to it.
    const forgotUrl = (d: Details) => (d.params.client_id === ids.admin ? undefined : `${deps.authPath}/forgot-password`);

    // Starting a sign-in stores an interaction: throttled per address before the provider runs.
    app.route({
      method: ['GET', 'POST'],
      url: `${deps.authPath}/oauth2/authorize`,
      schema: { hide: true },
      onRequest: async (request, reply) => {
        if (!allowed(request, reply, 'authorize')) {
          return html(reply, errorPage('temporarily_unavailable', 'Too many sign-ins were started from your network. Wait a minute and try again.'), 429);
        }
        return toProvider(request, reply);
      },
      handler: async () => undefined,
    });

    // Cognito's logout (`?client_id=…&logout_uri=…`): ends the session and the tokens issued in it
    // at once, then goes to `logout_uri` when it is one of the client's callbacks, else to our
    // signed-out page. Without `logout_uri` it is OpenID's RP-initiated logout: the provider's.
    app.get<{ Querystring: Record<string, unknown> }>(`${deps.authPath}/logout`, { schema: { hide: true } }, async (request, reply) => {
      const query = request.query ?? {};
      if (query.logout_uri === undefined) return toProvider(request, reply);
      const clientId = query.client_id;
      const logoutUri = query.logout_uri;
      if (typeof clientId !== 'string' || typeof logoutUri !== 'string' || fieldProblem(clientId) || fieldProblem(logoutUri)) {
        return html(reply, errorPage('invalid_request', 'The sign-out link is not valid.'), 400);
      }
      const client = await provider.Client.find(clientId);
      if (!client) return html(reply, errorPage('invalid_client', 'The sign-out link names an unknown app.'), 400);
      pinOrigin(request.raw, new URL(deps.authUrl));
      const ctx = provider.createContext(request.raw, reply.raw);
      const session = await provider.Session.get(ctx);
      if (session.accountId) {
        const grantIds = Object.values(session.authorizations ?? {}).flatMap((a) => (a.grantId ? [a.grantId] : []));
        await signIn.endSession(grantIds);
        await session.destroy();
      }
      // Forget the browser's session cookie however the session ended (also when it had expired).
      ctx.cookies.set(provider.cookieName('session'), null, { signed: true });
      if ((client.redirectUris ?? []).includes(logoutUri)) return reply.code(302).header('location', logoutUri).send();
      return html(reply, signedOutPage());
    });

    app.get<{ Params: { uid: string } }>(`${base}/:uid`, async (request, reply) => {
      const d = await details(request, reply);
      if (!d) return reply;
      if (d.prompt.name === 'consent' && d.session?.accountId) {
        // First-party clients: consent is implied once the user has signed in.
        return finish(request, reply, d, d.session.accountId, (d.session as { amr?: string[] }).amr ?? ['pwd']);
      }
      const pending = pendingOf(d);
      if (pending) return stepPage(reply, d.uid, pending);
      return html(reply, signInPage(`${base}/${d.uid}/login`, { client: clientName(d), forgotUrl: forgotUrl(d) }));
    });

    app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(`${base}/:uid/login`, async (request, reply) => {
      const d = await details(request, reply);
      if (!d) return reply;
      const action = `${base}/${d.uid}/login`;
      const form = request.body ?? {};
      const problem = fieldProblem(form.username) ?? fieldProblem(form.password);
      const email = problem ? '' : String(form.username ?? '').trim();
      if (!allowed(request, reply, 'signin')) return html(reply, signInPage(action, { client: clientName(d), email, error: TOO_MANY, forgotUrl: forgotUrl(d) }), 429);
      if (problem) return html(reply, signInPage(action, { client: clientName(d), error: problem, forgotUrl: forgotUrl(d) }), 400);
      const kind = d.params.client_id === ids.admin ? 'staff' : 'user';
      const account = email ? await signIn.password(kind, email, String(form.password ?? '')) : undefined;
      if (!account) {
        return html(reply, signInPage(action, { client: clientName(d), email, error: 'Incorrect email or password.', forgotUrl: forgotUrl(d) }), 401);
      }
      return advance(request, reply, d, account.id, ['pwd']);
    });

    /**
     * A step after the password: it must be the pending one (else back to the page of the one that
     * is); `run` answers the account when the step passed, or why it did not. Steps that check a
     * code take from the address's sign-in bucket, as the password step does.
     */
    function stepRoute(
      step: Pending['step'],
      field: string,
      run: (pending: Pending, value: string) => Promise<{ accountId: string; amr: string[] } | { error: string; status: number }>,
    ) {
      const guesses = step === 'otp' || step === 'enrol';
      app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(`${base}/:uid/${step}`, async (request, reply) => {
        const d = await details(request, reply);
        if (!d) return reply;
        const pending = pendingOf(d);
        if (pending?.step !== step) return reply.code(303).header('location', `${base}/${d.uid}`).send();
        if (guesses && !allowed(request, reply, 'signin')) return stepPage(reply, d.uid, pending, TOO_MANY, 429);
        const value = (request.body ?? {})[field];
        const problem = fieldProblem(value);
        if (problem) return stepPage(reply, d.uid, pending, problem, 400);
        const result = await run(pending, String(value ?? ''));
        if ('error' in result) return stepPage(reply, d.uid, pending, result.error, result.status);
        return advance(request, reply, d, result.accountId, result.amr);
      });
    }

    stepRoute('otp', 'otp', async (pending, code) => {
      const account = await signIn.otp(pending.accountId, code);
      return account ? { accountId: account.id, amr: [...pending.amr, 'otp'] } : { error: 'That code is not valid. Try the current one.', status: 401 };
    });

    stepRoute('enrol', 'otp', async (pending, code) => {
      const account = await signIn.confirmEnrolment(pending.accountId, code);
      return account ? { accountId: account.id, amr: [...pending.amr, 'otp'] } : { error: 'That code is not valid. Check the app and try again.', status: 401 };
    });

    stepRoute('new-password', 'new_password', async (pending, password) => {
      const result = await signIn.changePassword(pending.accountId, password);
      return typeof result === 'string' ? { error: result, status: 400 } : { accountId: result.id, amr: pending.amr };
    });
  };
}
