// What a signature's HTML uses that a major mail client will not show, from caniemail.com's
// support data (the `caniemail` package checks HTML and inline CSS against it). Every template
// save runs it (compile.ts), designed or hand-written, so its warnings name the clients a person
// cares about in plain words. (Gmail's length limit is checked on each save and render: email-html.ts.)
import { caniemail } from 'caniemail';

/** The clients a company's signatures meet most; each named as people know it. */
const CLIENTS = {
  'outlook.windows': 'Outlook for Windows',
  'outlook.macos': 'Outlook for Mac',
  'outlook.outlook-com': 'Outlook on the web',
  'outlook.ios': 'Outlook for iOS',
  'outlook.android': 'Outlook for Android',
  'gmail.desktop-webmail': 'Gmail',
  'gmail.ios': 'Gmail for iOS',
  'gmail.android': 'Gmail for Android',
  'apple-mail.macos': 'Apple Mail',
  'apple-mail.ios': 'Apple Mail on iPhone',
} as const;

/**
 * Unsupported features that degrade without harm, left out of the warnings: rounded corners come
 * out square in classic Outlook (a photo or button stays whole and readable).
 */
const GRACEFUL = new Set(['border-radius']);

/** One warning per unsupported feature, naming the clients that do not show it. */
export function clientSupportWarnings(html: string): string[] {
  const { issues } = caniemail({ clients: Object.keys(CLIENTS) as (keyof typeof CLIENTS)[], html });
  const byFeature = new Map<string, Set<string>>();
  for (const [client, list] of issues.errors) {
    for (const issue of list) {
      if (GRACEFUL.has(issue.title)) continue;
      const clients = byFeature.get(issue.title) ?? new Set<string>();
      clients.add(CLIENTS[client as keyof typeof CLIENTS] ?? client);
      byFeature.set(issue.title, clients);
    }
  }
  return [...byFeature].map(([feature, clients]) => `${feature} is not supported by ${[...clients].join(', ')}: it will not show as designed there.`);
}
