// The sign-in pages behind oidc-provider's interactions. Each route reads the interaction, runs one
// step (steps.ts: password, TOTP code, TOTP enrolment, a new password) and shows what it answers:
// the same page with why, the next step's page, or the end of the sign-in. A step in progress is
// kept in the interaction itself (`result.pending`, never `login`), so the provider's resume URL
// cannot skip a step. Also here, in front of the provider: the per-address limit of starting a
// sign-in at `/oauth2/authorize`. The pages only call the sign-in service; it owns reads and writes.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type Provider from 'oidc-provider';
import type { SignIn } from './sign-in.ts';
import { clientIds, INTERACTION_TTL_S, sessionFit } from './provider.ts';
import { handToProvider, pinOrigin } from './hooks.ts';
import { codeStep, newPasswordStep, nextStep, passwordStep, type Pending, type StepOutcome } from './steps.ts';
import { crossSitePage, enrolPage, errorPage, newPasswordPage, otpPage, signInPage } from './views.ts';
import type { TakeAttempt } from './attempts.ts';
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { refuseCrossSitePosts } from '../http/cross-site.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
type UidRequest = FastifyRequest<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>;

export interface InteractionDeps {
  provider: Provider;
  signIn: SignIn;
  clock: () => Date;
  stage: string;
  authUrl: string;
  authPath: string;
  /** How long a staff sign-in lasts (the admin client's refresh lifetime). */
  staffSignInTtlS: number;
  takeAttempt: TakeAttempt;
  /** The pages' headers (views.ts `pageHeaders`). */
  pageHeaders: Readonly<Record<string, string>>;
}

const pendingOf = (d: Details) => (d.result as { pending?: Pending } | undefined)?.pending;

/** The end of a sign-in: a grant for the client's scopes, then back to the provider, which redirects to the callback. */
async function finish(provider: Provider, clock: () => Date, request: FastifyRequest, reply: FastifyReply, d: Details, accountId: string, amr: string[]) {
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
    { login: { accountId, amr, remember: true, ts: Math.floor(clock().getTime() / 1000) }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
  return reply.code(303).header('location', to).send();
}

/** What the routes below share: reading the interaction, showing a page, moving to the next step. */
function interactionPages(deps: InteractionDeps) {
  const { provider, signIn } = deps;
  const ids = clientIds(deps.stage);
  const base = `${deps.authPath}/interaction`;
  const fits = sessionFit({ ids, staffSignInTtlS: deps.staffSignInTtlS, clock: deps.clock, kindOf: async (id) => (await signIn.account(id))?.kind });
  const authOrigin = new URL(deps.authUrl);
  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(deps.pageHeaders).type('text/html; charset=utf-8').send(body);
  const forms = { onRequest: refuseCrossSitePosts(authOrigin.origin, (reply) => html(reply, crossSitePage(), 403)) };

  /**
   * A re-authorization the browser's session answers without a form (a reload of an app) is no
   * sign-in attempt: a GET that asks for no prompt, with a session that signs in to this client as
   * the provider's own check would decide (provider.ts `sessionFit`).
   */
  async function silent(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (request.method !== 'GET') return false;
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (typeof query.client_id !== 'string' || query.prompt !== undefined || query.max_age !== undefined) return false;
    pinOrigin(request.raw, authOrigin);
    const session = await provider.Session.get(provider.createContext(request.raw, reply.raw));
    return fits(session, query.client_id);
  }

  async function details(request: UidRequest, reply: FastifyReply): Promise<Details | undefined> {
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

  const clientName = (d: Details) => (d.params.client_id === ids.admin ? 'the staff admin app' : 'Signature Service');
  // "Forgot your password?" (src/people/) resets org users' passwords: the customer client's page links to it.
  const forgotUrl = (d: Details) => (d.params.client_id === ids.admin ? undefined : `${deps.authPath}/forgot-password`);
  const loginPage = (d: Details, opts: { email?: string; error?: string } = {}) =>
    signInPage(`${base}/${d.uid}/login`, { client: clientName(d), forgotUrl: forgotUrl(d), ...opts });

  async function stepPage(reply: FastifyReply, uid: string, pending: Pending, error?: string, status = 200) {
    if (pending.step === 'otp') return html(reply, otpPage(`${base}/${uid}/otp`, { error }), status);
    if (pending.step === 'new-password') {
      return html(reply, newPasswordPage(`${base}/${uid}/new-password`, { error, minLength: MIN_PASSWORD_LENGTH }), status);
    }
    const secret = await signIn.enrolment(pending.accountId);
    if (!secret) return html(reply, errorPage('login_required', 'The account no longer exists.'), 400);
    // Loaded here, with the first enrolment: ~1 MB of heap no other page needs.
    const { default: QRCode } = await import('qrcode');
    const qrDataUrl = await QRCode.toDataURL(secret.uri, { width: 200, margin: 1 });
    return html(reply, enrolPage(`${base}/${uid}/enrol`, { ...secret, qrDataUrl, error }), status);
  }

  /** After a step passed: the end of the sign-in, or the next step kept in the interaction and its page. */
  async function advance(request: FastifyRequest, reply: FastifyReply, d: Details, passed: { accountId: string; amr: string[] }) {
    const next = nextStep(await signIn.account(passed.accountId), passed.amr, d.params.client_id === ids.admin);
    if (next.kind === 'gone') return html(reply, errorPage('login_required', 'The account no longer exists.'), 400);
    if (next.kind === 'done') return finish(provider, deps.clock, request, reply, d, next.accountId, next.amr);
    // Each step passed gives the sign-in the interaction's lifetime again (it has at most three).
    d.result = { pending: next.pending };
    await d.save(INTERACTION_TTL_S);
    return reply.code(303).header('location', `${base}/${d.uid}`).send();
  }

  return { base, ids, html, forms, silent, details, loginPage, stepPage, advance };
}

/** A step after the password: only the pending one runs (else back to the page of the one that is). */
function stepRoute(
  pages: ReturnType<typeof interactionPages>,
  app: Parameters<FastifyPluginAsync>[0],
  step: Pending['step'],
  run: (pending: Pending, request: UidRequest, reply: FastifyReply) => Promise<StepOutcome>,
) {
  const { base, forms, details, stepPage, advance } = pages;
  app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(`${base}/:uid/${step}`, forms, async (request, reply) => {
    const d = await details(request, reply);
    if (!d) return reply;
    const pending = pendingOf(d);
    if (pending?.step !== step) return reply.code(303).header('location', `${base}/${d.uid}`).send();
    const outcome = await run(pending, request, reply);
    if (outcome.kind === 'refused') return stepPage(reply, d.uid, pending, outcome.error, outcome.status);
    return advance(request, reply, d, outcome);
  });
}

export function interactionRoutes(deps: InteractionDeps): FastifyPluginAsync {
  const { provider, signIn, takeAttempt } = deps;
  const toProvider = handToProvider(provider, deps.authUrl);
  const pages = interactionPages(deps);
  const { base, ids, html, forms, silent, details, loginPage, stepPage, advance } = pages;

  return async (app) => {
    // The sign-in pages answer HTML to a browser: they are not API operations, so every page of
    // this plugin stays out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(formbody, { bodyLimit: 16 * 1024 });

    // Starting a sign-in stores an interaction and shows a form: one attempt of the address's,
    // taken before the provider runs (so a refused call stores nothing).
    app.route({
      method: ['GET', 'POST'],
      url: `${deps.authPath}/oauth2/authorize`,
      onRequest: async (request, reply) => {
        if (!(await silent(request, reply)) && !(await takeAttempt(request, reply, 'authorize'))) {
          return html(reply, errorPage('temporarily_unavailable', 'Too many sign-ins were started from your network. Wait a minute and try again.'), 429);
        }
        return toProvider(request, reply);
      },
      handler: async () => undefined,
    });

    app.get<{ Params: { uid: string } }>(`${base}/:uid`, async (request, reply) => {
      const d = await details(request as UidRequest, reply);
      if (!d) return reply;
      if (d.prompt.name === 'consent' && d.session?.accountId) {
        // First-party clients: consent is implied once the user has signed in.
        return finish(provider, deps.clock, request, reply, d, d.session.accountId, (d.session as { amr?: string[] }).amr ?? ['pwd']);
      }
      const pending = pendingOf(d);
      if (pending) return stepPage(reply, d.uid, pending);
      return html(reply, loginPage(d));
    });

    app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(`${base}/:uid/login`, forms, async (request, reply) => {
      const d = await details(request, reply);
      if (!d) return reply;
      const form = request.body ?? {};
      const kind = d.params.client_id === ids.admin ? 'staff' : 'user';
      const throttled = !(await takeAttempt(request, reply, 'signin'));
      const outcome = await passwordStep({ username: form.username, password: form.password, throttled }, (email, password) =>
        signIn.password(kind, email, password),
      );
      if (outcome.kind === 'refused') {
        return html(reply, loginPage(d, { email: outcome.email, error: outcome.error }), outcome.status);
      }
      return advance(request, reply, d, outcome);
    });

    const guess = async (request: FastifyRequest, reply: FastifyReply) => !(await takeAttempt(request, reply, 'signin'));
    stepRoute(pages, app, 'otp', async (pending, request, reply) =>
      codeStep({ pending, code: request.body?.otp, throttled: await guess(request, reply) }, (id, code) => signIn.otp(id, code)),
    );
    stepRoute(pages, app, 'enrol', async (pending, request, reply) =>
      codeStep({ pending, code: request.body?.otp, throttled: await guess(request, reply) }, (id, code) => signIn.confirmEnrolment(id, code)),
    );
    stepRoute(pages, app, 'new-password', async (pending, request) =>
      newPasswordStep({ pending, password: request.body?.new_password }, (id, password) => signIn.changePassword(id, password)),
    );
  };
}
