// CLINK requests (docs/pub-protocol.md, "CLINK"): what a payer, a debit requester or a manager sends to an
// app key on kinds 21001–21004. They arrive through the relay transport's CLINK codec and the dispatcher like every
// request; the caller is the event's author (auth kind clinkRequester). The user's side (offers, debit and manage
// grants) is in user.ts.
import { operation } from '../operation.js'
import { clinkDebitKind, clinkEnrollKind, clinkManageKind, clinkOfferKind } from '../../src/nostr-kinds/index.js'
import { ClinkRequestAnswer, ClinkRequestEvent } from '../messages/clink-requests.js'

export const clinkOperations = [
  operation({
    name: 'ClinkOfferRequest', area: 'clink', auth: 'clinkRequester', dialect: 'pub', nostrCodec: { kind: clinkOfferKind, request: 'offer' },
    input: ClinkRequestEvent, output: ClinkRequestAnswer,
    summary: "A payer's CLINK offer request (Nostr kind 21001 only): the invoice for a noffer, or an error with the spec's code 1–5; a receipt follows payment.",
  }),
  operation({
    name: 'ClinkDebitRequest', area: 'clink', auth: 'clinkRequester', dialect: 'pub', nostrCodec: { kind: clinkDebitKind, request: 'debit' },
    input: ClinkRequestEvent, output: ClinkRequestAnswer,
    summary: "A CLINK debit request (Nostr kind 21002 only): paid under the requester's grant, refused, or parked for the user's decision (answered later).",
  }),
  operation({
    name: 'ClinkManageRequest', area: 'clink', auth: 'clinkRequester', dialect: 'pub', nostrCodec: { kind: clinkManageKind, request: 'manage' },
    input: ClinkRequestEvent, output: ClinkRequestAnswer,
    summary: "A CLINK manage request (Nostr kind 21003 only): an offer action under the requester's grant, or parked for the user's decision (answered later).",
  }),
  operation({
    name: 'ClinkEnrollRequest', area: 'clink', auth: 'clinkRequester', dialect: 'pub', nostrCodec: { kind: clinkEnrollKind, request: 'enroll' },
    input: ClinkRequestEvent, output: ClinkRequestAnswer,
    summary: "CLINK enroll (Nostr kind 21004 only, upstream's next version): the requester's key opens an account in the app it addressed (proof of work on the event id for a new key) and gets its noffer, ndebit and nmanage pointers; a key with an account gets its pointers again.",
  }),
]
