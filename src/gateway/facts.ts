// What the stamping pass learns of a message (mime.ts), in a module of its own: the engine makes an
// empty one for every message, and mime.ts's parsers load only when a message is read (engine.ts).
export interface MessageFacts {
  /** The sender: the one mailbox of the one From field, lower case; undefined when the From fields name no one, or several. */
  from: string | undefined;
  /** Every mailbox address of every From field, lower case: none may be another org's. */
  fromAddresses: string[];
  alreadyStamped: boolean;
  tenantId: string | undefined;
  isReply: boolean;
  /** Why the body must not change: a signature, encryption (inline PGP too), or a calendar part. */
  untouchable: 'signed-or-encrypted' | 'calendar' | undefined;
}

export const noFacts = (): MessageFacts => ({
  from: undefined,
  fromAddresses: [],
  alreadyStamped: false,
  tenantId: undefined,
  isReply: false,
  untouchable: undefined,
});
