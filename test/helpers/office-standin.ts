// A stand-in for Office.js, for running the add-in's runtime outside Outlook: in Chromium (served in
// place of Microsoft's CDN script) and in a bare node:vm context (as classic Outlook on Windows runs
// it). It records what the runtime does (setSignatureAsync, disableClientSignatureAsync,
// notifications, event.completed) and plays one event of a scenario. `installOfficeStandIn` is
// serialized with toString() into the page: it must use nothing from its surroundings.

export interface Scenario {
  /** The function name the manifest gives the event (or `insertSignature`, the compose button). */
  handler: string;
  itemType?: 'message' | 'appointment';
  /** What getComposeTypeAsync answers: newMail | reply | forward. */
  composeType?: string;
  /** The From address (the organizer of a meeting). */
  from: string;
  /** An older client: no getComposeTypeAsync, no disableClientSignatureAsync. */
  oldClient?: boolean;
  /** A client API that throws when called. */
  throwIn?: 'from' | 'setSignature';
  /** How long to wait for event.completed before giving up (the test then fails on completed 0). */
  giveUpMs?: number;
}

export interface Played {
  completed: number;
  signatures: { html: string; coercionType: string | undefined }[];
  disabled: number;
  notifications: string[];
  /** What had been set when completed was first called. */
  signaturesAtCompletion: number;
}

export function installOfficeStandIn(root: any): void {
  const handlers: Record<string, (event: unknown) => void> = {};
  const ok = (value?: unknown) => ({ status: 'succeeded', value });
  const later = (fn: () => void) => setTimeout(fn, 1);
  const office: any = {
    actions: { associate: (name: string, fn: (event: unknown) => void) => (handlers[name] = fn) },
    context: { mailbox: { userProfile: { emailAddress: '' }, item: null } },
  };
  root.Office = office;
  root.__officeHandlers = handlers;
  root.__play = (s: Scenario): Promise<Played> =>
    new Promise((resolve) => {
      const rec: Played = { completed: 0, signatures: [], disabled: 0, notifications: [], signaturesAtCompletion: -1 };
      root.__lastPlayed = rec;
      const item: any = {
        itemType: s.itemType ?? 'message',
        body: {
          setSignatureAsync(html: string, options: { coercionType?: string }, cb: (r: unknown) => void) {
            if (s.throwIn === 'setSignature') throw new Error('setSignatureAsync failed');
            rec.signatures.push({ html, coercionType: options?.coercionType });
            later(() => cb(ok()));
          },
        },
        notificationMessages: {
          replaceAsync(_key: string, message: { message: string }) {
            rec.notifications.push(message.message);
          },
        },
      };
      const address = {
        getAsync(cb: (r: unknown) => void) {
          if (s.throwIn === 'from') throw new Error('getAsync failed');
          later(() => cb(ok({ emailAddress: s.from, displayName: 'Sender' })));
        },
      };
      if (item.itemType === 'appointment') item.organizer = address;
      else {
        item.from = address;
        if (!s.oldClient) {
          item.getComposeTypeAsync = (cb: (r: unknown) => void) => later(() => cb(ok({ composeType: s.composeType ?? 'newMail', coercionType: 'html' })));
          item.disableClientSignatureAsync = (cb: (r: unknown) => void) => {
            rec.disabled++;
            later(() => cb(ok()));
          };
        }
      }
      office.context.mailbox.item = item;
      office.context.mailbox.userProfile.emailAddress = s.from;
      const giveUp = setTimeout(() => resolve(rec), s.giveUpMs ?? 15_000);
      const event = {
        completed() {
          rec.completed++;
          if (rec.completed === 1) {
            rec.signaturesAtCompletion = rec.signatures.length;
            clearTimeout(giveUp);
            // A little longer, to see a second call if there is one.
            setTimeout(() => resolve(rec), 100);
          }
        },
      };
      const handler = handlers[s.handler];
      if (!handler) throw new Error(`no handler associated for ${s.handler}`);
      handler(event);
    });
}
