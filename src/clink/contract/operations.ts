// The operations the CLINK room serves (docs/pub-protocol.md, "CLINK"): the user's side (offers, debit and manage
// grants and their live request streams), and the requests a payer, a debit requester or a manager sends to an app
// key on kinds 21001–21004. Those arrive through the relay transport's CLINK codec and the dispatcher like every
// request; the caller is the event's author (auth kind clinkRequester).
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { clinkDebitKind, clinkEnrollKind, clinkManageKind, clinkOfferKind } from '../../nostr-kinds/index.js'
import {
  DebitAuthorizationRequest, DebitAuthorizations, DebitOperation, DebitResponse, LiveDebitRequest,
} from '../../../schema/messages/debits.js'
import {
  GetUserOfferInvoicesReq, OfferConfig, OfferCreateRequest, OfferId, OfferInvoices, OfferUpdateRequest, UserOffers,
} from '../../../schema/messages/offers.js'
import { ClinkRequestAnswer, ClinkRequestEvent } from './messages/clink-requests.js'
import {
  LiveManageRequest, ManageAuthorization, ManageAuthorizationRequest, ManageAuthorizations, ManageOperation,
} from './messages/manage.js'

export const clinkOperations = [
  operation({
    name: 'GetUserOffers', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/user/offers/get', body: 'none' },
    input: Empty, output: UserOffers,
    summary: "The user's CLINK offers; the default offer is created on first use.",
  }),
  operation({
    name: 'GetUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/get' },
    input: OfferId, output: OfferConfig,
    summary: "One of the user's offers.",
  }),
  operation({
    name: 'GetUserOfferInvoices', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/get/invoices' },
    input: GetUserOfferInvoicesReq, output: OfferInvoices,
    summary: 'Invoices issued for an offer, paid ones or all, with the payer data captured for each.',
  }),
  operation({
    name: 'UpdateUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/update' },
    input: OfferUpdateRequest, output: Empty,
    summary: "Changes an offer's label, price, callback, requested payer data and options.",
  }),
  operation({
    name: 'DeleteUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/delete' },
    input: OfferId, output: Empty,
    summary: "Deletes one of the user's offers.",
  }),
  operation({
    name: 'AddUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/add' },
    input: OfferCreateRequest, output: OfferId,
    summary: 'Creates a CLINK offer (price 0: the payer chooses the amount) and returns its id.',
  }),
  operation({
    name: 'GetDebitAuthorizations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'GET', path: '/api/user/debit/get', body: 'none' },
    input: Empty, output: DebitAuthorizations,
    summary: 'The CLINK debit grants and bans the user has made, with their rules.',
  }),
  operation({
    name: 'GetManageAuthorizations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'GET', path: '/api/user/manage/get', body: 'none' },
    input: Empty, output: ManageAuthorizations,
    summary: 'The CLINK manage grants and bans the user has made.',
  }),
  operation({
    name: 'AuthorizeManage', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/manage/authorize' },
    input: ManageAuthorizationRequest, output: ManageAuthorization,
    summary: "Allows a key to manage the user's offers, or bans it with `ban`.",
  }),
  operation({
    name: 'ResetManage', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/manage/reset' },
    input: ManageOperation, output: Empty,
    summary: 'Removes the manage grant or ban of a key.',
  }),
  operation({
    name: 'EditDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/edit' },
    input: DebitAuthorizationRequest, output: Empty,
    summary: 'Allows a key to debit the user under the given rules (expiry, amount per interval).',
  }),
  operation({
    name: 'BanDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/ban' },
    input: DebitOperation, output: Empty,
    summary: 'Bans a key from requesting debits.',
  }),
  operation({
    name: 'ResetDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/reset' },
    input: DebitOperation, output: Empty,
    summary: 'Removes the debit grant or ban of a key.',
  }),
  operation({
    name: 'RespondToDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/finish' },
    input: DebitResponse, output: Empty,
    summary: 'Answers a pending debit request: deny it, pay its invoice, or authorize the key under rules.',
  }),
  operation({
    name: 'GetLiveDebitRequests', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/debit/sub', body: 'none' },
    input: Empty, output: LiveDebitRequest,
    summary: "Stream of incoming debit requests that need the user's answer (relay transport only).",
  }),
  operation({
    name: 'GetLiveManageRequests', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/manage/sub', body: 'none' },
    input: Empty, output: LiveManageRequest,
    summary: "Stream of incoming manage requests from keys without a grant (relay transport only).",
  }),
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
