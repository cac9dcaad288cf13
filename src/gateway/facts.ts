// What the stamping pass learns of a message (mime.ts), in a module of its own: the engine makes an
// empty one for every message, and mime.ts's parsers load only when a message is read (engine.ts).
export interface MessageFacts {
  /** The From header's address, lower case. */
  from: string | undefined;
  alreadyStamped: boolean;
  tenantId: string | undefined;
  isReply: boolean;
  /** Why the body must not change: a signature, encryption, or a calendar part. */
  untouchable: 'signed-or-encrypted' | 'calendar' | undefined;
}

export const noFacts = (): MessageFacts => ({ from: undefined, alreadyStamped: false, tenantId: undefined, isReply: false, untouchable: undefined });
