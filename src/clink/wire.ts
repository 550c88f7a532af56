// What a CLINK request is to this room and what it answers (docs/pub-protocol.md, "CLINK"): the four kinds, the
// decrypted request, the answer, and the messages the room sends on its own later (receipts, answers to parked
// requests). The relay transport's CLINK codec builds requests from events and sends answers and messages; the room
// never sees an event or a key, and sends its own messages as `clink.answer` domain events.

import { clinkKinds, type ClinkKind } from '../nostr-kinds/index.js'

export { clinkOfferKind, clinkDebitKind, clinkManageKind, clinkEnrollKind, clinkKinds, type ClinkKind } from '../nostr-kinds/index.js'

export function isClinkKind(kind: number): kind is ClinkKind {
  return (clinkKinds as readonly number[]).includes(kind)
}

/** A decrypted CLINK request addressed to one of our app keys. */
export interface ClinkRequest {
  kind: ClinkKind
  /** The request event's id: the `e` tag of every answer, and the key that makes it run once. */
  id: string
  requester: string
  appId: string
  createdAt: number
  tags: string[][]
  /** The parsed JSON content, or the text itself when it is not JSON (not validated: the room checks it). */
  body: unknown
}

/** What a request is answered with. Every CLINK answer carries `["clink_version","1"]`; `clinkVersion` is kept for the stored replies of earlier runs. */
export interface ClinkAnswer {
  payload: Record<string, unknown>
  clinkVersion?: boolean
}

/** A message the room sends on its own: a receipt after payment, the answer to a request the user decided later. */
export interface ClinkMessage extends ClinkAnswer {
  appId: string
  to: string
  kind: ClinkKind
  /** The request it answers (`e` tag). */
  replyTo: string
}

/** How the room's parts send messages; there is one once the relays are up (`Clink.start`). */
export interface ClinkSender {
  /** Hands the message to the relay transport (a `clink.answer` domain event); false when it cannot be sent. */
  send(message: ClinkMessage): boolean
}

export type ClinkResumed = ClinkAnswer | 'later' | undefined

/** What the relay transport's CLINK codec asks the room besides the requests themselves (catalogue operations). */
export interface ClinkServer {
  /**
   * A request taken by a run that stopped before answering (never run again): the room's answer when it knows how
   * that run ended (a debit it paid), 'later' when it answered or will answer on its own, undefined when it knows
   * nothing (the requester hears "Temporary Failure").
   */
  resume?(request: ClinkRequest): ClinkResumed | Promise<ClinkResumed>
}
