// The set-up the dashboard's browser test files share, in one call inside their describe(): the
// real service, the process's shared Chromium (test/helpers/chromium.ts), an org (with or without
// the starter templates), a template, and a person with a password to sign in as. The before hook
// builds them in that order and hands them to the file's own variables; the after hook closes the
// browser hold, then the server.
//
// What a file starts besides (fakes of outside services, an SMTP sink) stays in the file: started
// in a before hook registered ahead of browserSuite() (its address read by `env`, called once it
// runs), and closed in an after hook registered after it, so the server closes first.
//
//   let server: TestServer;
//   let browser: SharedBrowser;
//   let org: TestOrg;
//   let admin: Person;
//   browserSuite({ org: { name: 'Contoso' }, template: {}, person: 'admin' }, (s) => ({ server, browser, org, person: admin } = s));
import { after, before } from 'node:test';
import { launchBrowser, type SharedBrowser } from './chromium.ts';
import { createOrg, createOrgWithoutTemplates, createTemplate, type TestOrg, userWithPassword } from './fixtures.ts';
import { startServer, type TestServer } from './server.ts';
import { callingTestFile } from './shared-resources.ts';

/** Someone who signs in through the identity provider's pages. */
export interface Person {
  email: string;
  password: string;
  userId: string;
}

export interface BrowserSuite {
  server: TestServer;
  browser: SharedBrowser;
  org: TestOrg;
  /** The person asked for by `person`; undefined when none was. */
  person: Person;
}

export interface BrowserSuiteOptions {
  /** The server's environment, or a function giving it when the before hook runs (a fake's address). */
  env?: Record<string, string> | (() => Record<string, string>);
  /** Starts the server another way (e.g. test/helpers/google-setup.ts's), with the test file it belongs to. */
  startServer?: (testFile: string) => Promise<TestServer>;
  /** The org's name and seats; `starterTemplates: false` removes the starter templates, so the file's own is the default. */
  org?: { name?: string; seats?: number; starterTemplates?: boolean };
  /** A template made in the org (createTemplate's overrides: `{}` for the standard one). */
  template?: Record<string, unknown>;
  /** A person of this role in the org, with a password (the owner is the org's owner). */
  person?: 'owner' | 'admin' | 'member';
}

/** Registers the before and after hooks of a browser test file's set-up; `use` receives what they made. */
export function browserSuite(options: BrowserSuiteOptions, use: (suite: BrowserSuite) => void): void {
  // Read here, at describe() time: the hooks run from this file, with no test file on the stack.
  const testFile = callingTestFile();
  let server: TestServer | undefined;
  let browser: SharedBrowser | undefined;
  before(async () => {
    const env = typeof options.env === 'function' ? options.env() : options.env;
    server = options.startServer ? await options.startServer(testFile) : await startServer(env, { testFile });
    browser = await launchBrowser();
    const { starterTemplates = true, ...orgOptions } = options.org ?? {};
    const org = starterTemplates ? await createOrg(server, orgOptions) : await createOrgWithoutTemplates(server, orgOptions);
    if (options.template) await createTemplate(server, org, options.template);
    const person = options.person ? await userWithPassword(server, org, options.person) : (undefined as unknown as Person);
    use({ server, browser, org, person });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
}
