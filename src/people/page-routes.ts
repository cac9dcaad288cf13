// The pages under AUTH_URL that let people in without anyone typing a password for them:
// `/invitation/{token}`, `/forgot-password`, `/reset-password/{token}`. Each link page shows a form
// (`password`, `passwordConfirm`) or, for a link that cannot be used, a page that says why (never a
// 500). A used link signs the account in on this browser and leads to APP_URL, where the dashboard's
// sign-in (code + PKCE) completes without a password prompt; an account with TOTP is not signed in
// (a mailbox alone must not pass two-step verification): it signs in as usual.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type Provider from 'oidc-provider';
import type { Clock } from '../lib/clock.ts';
import { isStorable } from '../lib/text.ts';
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { crossSitePage, pinOrigin, startSession, type TakeAttempt } from '../idp/module.ts';
import { refuseCrossSitePosts } from '../http/cross-site.ts';
import { linkProblemText, MAX_PASSWORD_LENGTH, type PeopleService } from './service.ts';
import { forgotPage, forgotSentPage, invitationPage, linkProblemPage, resetPage } from './views.ts';

/** Which link a page serves: an invitation or a password reset. */
type TokenPurpose = Parameters<typeof linkProblemText>[1];

// What a browser's <input type="email"> accepts (WHATWG), at most 254 characters.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

type Form = Record<string, unknown> | undefined;

/** A form value as a string, or why the form is refused. */
function field(form: Form, name: string, max: number): string | { problem: string } {
  const value = form?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') return { problem: 'The form was not filled in as expected.' };
  if (!isStorable(value)) return { problem: 'The form holds characters that are not allowed.' };
  if (value.length > max) return { problem: 'A field of the form is too long.' };
  return value;
}

export function peoplePageRoutes(deps: {
  people: PeopleService;
  provider: Provider;
  authUrl: string;
  authPath: string;
  appUrl: string;
  /** Where a staff member's accepted invitation leads: the admin app, whose sign-in enrols TOTP. */
  adminUrl: string;
  sessionTtlS: number;
  /**
   * SIGNIN_ATTEMPTS_PER_MINUTE per client address covers posting "Forgot your password?" as it
   * covers the sign-in steps (docs/api.md, "People getting in"); the per-address limit of mails is
   * the people service's.
   */
  takeAttempt: TakeAttempt;
  /** The identity provider's pages' headers (src/idp/views.ts `pageHeaders`). */
  pageHeaders: Readonly<Record<string, string>>;
  /** When an accepted link's session starts. */
  clock: Clock;
}): FastifyPluginAsync {
  const { people, authPath } = deps;
  const forgotUrl = `${authPath}/forgot-password`;

  return async (app) => {
    await app.register(formbody, { bodyLimit: 16 * 1024 });
    const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(deps.pageHeaders).type('text/html; charset=utf-8').send(body);
    // Every form here refuses a post from another site (a login CSRF would sign the victim in as the attacker).
    const forms = {
      schema: { hide: true },
      onRequest: refuseCrossSitePosts(new URL(deps.authUrl).origin, (reply) => html(reply, crossSitePage(), 403)),
    };

    const problemPage = (reply: FastifyReply, purpose: TokenPurpose, problem: Parameters<typeof linkProblemText>[0]) => {
      const { status, message } = linkProblemText(problem, purpose);
      const next = purpose === 'invitation' ? { href: deps.appUrl, label: 'Go to the sign-in' } : { href: forgotUrl, label: 'Ask for a new link' };
      return html(reply, linkProblemPage(purpose === 'invitation' ? 'Invitation' : 'Password reset', message, next), status);
    };

    /** What an invitation's page says the person joins: their org, or the service's staff. */
    const invitedTo = (found: { account: { kind: string }; orgName: string }) =>
      found.account.kind === 'staff' ? 'the staff of Signature Service' : found.orgName;

    /** GET and POST of one kind of link page. */
    function linkPages(purpose: TokenPurpose, path: string) {
      const page = (token: string, info: { email: string; orgName: string }, error?: string) =>
        purpose === 'invitation'
          ? invitationPage(`${authPath}/${path}/${token}`, { email: info.email, orgName: info.orgName, minLength: MIN_PASSWORD_LENGTH, error })
          : resetPage(`${authPath}/${path}/${token}`, { email: info.email, minLength: MIN_PASSWORD_LENGTH, error });

      app.get<{ Params: { token: string } }>(`${authPath}/${path}/:token`, { schema: { hide: true } }, async (request, reply) => {
        const found = await people.inspect(request.params.token, purpose);
        if (typeof found === 'string') return problemPage(reply, purpose, found);
        return html(reply, page(request.params.token, { email: found.account.email, orgName: invitedTo(found) }));
      });

      app.post<{ Params: { token: string }; Body: Form }>(`${authPath}/${path}/:token`, forms, async (request, reply) => {
        const { token } = request.params;
        const found = await people.inspect(token, purpose);
        if (typeof found === 'string') return problemPage(reply, purpose, found);
        const info = { email: found.account.email, orgName: invitedTo(found) };
        const password = field(request.body, 'password', MAX_PASSWORD_LENGTH);
        const confirm = field(request.body, 'passwordConfirm', MAX_PASSWORD_LENGTH);
        if (typeof password !== 'string') return html(reply, page(token, info, password.problem), 400);
        if (typeof confirm !== 'string') return html(reply, page(token, info, confirm.problem), 400);
        const result = purpose === 'invitation' ? await people.accept(token, password, confirm) : await people.reset(token, password, confirm);
        if ('problem' in result) return problemPage(reply, purpose, result.problem);
        if ('error' in result) return html(reply, page(token, info, result.error), 400);
        // Staff must sign in with a TOTP code (enrolled at that first sign-in): no session is started for them.
        const staff = result.account.kind === 'staff';
        if (!result.account.totpSecret && !staff) {
          await startSession(deps.provider, deps.authUrl, request.raw, reply.raw, result.account.id, deps.sessionTtlS, pinOrigin, deps.clock());
        }
        return reply
          .code(303)
          .header('location', staff ? deps.adminUrl : deps.appUrl)
          .header('cache-control', 'no-store')
          .send();
      });
    }

    linkPages('invitation', 'invitation');
    linkPages('password_reset', 'reset-password');

    app.get(forgotUrl, { schema: { hide: true } }, async (_request, reply) => html(reply, forgotPage(forgotUrl)));

    app.post<{ Body: Form }>(forgotUrl, forms, async (request: FastifyRequest<{ Body: Form }>, reply) => {
      if (!(await deps.takeAttempt(request, reply, 'forgot'))) {
        return html(reply, forgotPage(forgotUrl, { error: 'Too many requests from your network. Wait a minute and try again.' }), 429);
      }
      const email = field(request.body, 'email', 254);
      if (typeof email !== 'string') return html(reply, forgotPage(forgotUrl, { error: email.problem }), 400);
      const address = email.trim();
      if (!EMAIL.test(address)) return html(reply, forgotPage(forgotUrl, { error: 'Enter an email address.', email: address }), 400);
      // The same page whatever the address: the answer only queues the lookup (a job, run by the
      // queue's worker, never on this request's or the next one's turn), so neither the words nor
      // the time tell whether an account exists.
      await people.askReset(address);
      return html(reply, forgotSentPage());
    });
  };
}
