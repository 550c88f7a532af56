// The user's side of CLINK offers: AddUserOffer, GetUserOffer, UpdateUserOffer,
// DeleteUserOffer, GetUserOffers (which creates the default offer on first use) and GetUserOfferInvoices. What a
// payer's kind-21001 request gets is in offer-requests.ts.
import type { z } from 'zod'
import { type Observable, type DomainEvent, OperationError, type HandlerTable } from '../../bus/index.js'
import type { Logger } from 'pino'
import type { SqlStore } from '../../store/index.js'
import type { LightningNode } from '../../node/index.js'
import { clinkOfferKind, type ClinkSender } from '../wire.js'
import { requestHandler, type ClinkPart } from '../parts.js'
import { offerRequests } from '../offer-requests.js'
import { receiptBook } from '../receipts.js'
import { receiptStore } from '../receipt-store.js'
import type { OfferConfig } from '../../../schema/messages/offers.js'
import { type Wallet } from '../../wallet/index.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'
import { encodeNoffer } from '../../nostr-codecs/index.js'
import { checkOfferFields, OfferFieldError, type OfferFieldsInput } from '../offer-fields.js'
import { payerDataOf, type OfferFields, type OfferRow, type OfferStore } from '../offer-store.js'

export interface OfferHandlerDeps {
  offers: OfferStore
  wallet: Pick<Wallet, 'accounts' | 'offerInvoices'>
  relayUrl(): string
  allowLoopbackCallbacks: boolean
}

/** The noffer a payer uses for this offer: fixed price when it has one, else the payer picks the amount. */
export function nofferOf(row: OfferRow, appPubkey: string, relay: string): string {
  return encodeNoffer({
    pubkey: appPubkey,
    relay,
    offer: row.offer_id,
    ...(row.price_sats > 0 ? { priceType: 'fixed', priceSats: row.price_sats } : { priceType: 'spontaneous' }),
  })
}

export function offerConfig(row: OfferRow, identifier: string, appPubkey: string, relay: string): z.input<typeof OfferConfig> {
  return {
    offer_id: row.offer_id,
    label: row.label,
    price_sats: row.price_sats,
    callback_url: row.callback_url,
    payer_data: payerDataOf(row),
    noffer: nofferOf(row, appPubkey, relay),
    default_offer: row.offer_id === identifier,
    token: row.token,
    rejectUnauthorized: row.reject_unauthorized === 1,
    // Upstream quirk kept: the "Unix" times are milliseconds.
    createdAtUnix: row.created_at,
    updatedAtUnix: row.updated_at,
    blind: row.blind === 1,
  }
}

export function offerHandlers({ offers, wallet, relayUrl, allowLoopbackCallbacks }: OfferHandlerDeps): HandlerTable {
  const appPubkey = async (appId: string) => {
    const app = await wallet.accounts.appById(appId)
    if (!app) throw new OperationError('not_found', 'app not found')
    return app.nostr_public_key
  }

  const fieldsOf = (input: OfferFieldsInput & { rejectUnauthorized?: boolean; blind?: boolean }): OfferFields => {
    try {
      return {
        ...checkOfferFields(input, { allowLoopback: allowLoopbackCallbacks }),
        ...(input.rejectUnauthorized !== undefined ? { rejectUnauthorized: input.rejectUnauthorized } : {}),
        ...(input.blind !== undefined ? { blind: input.blind } : {}),
      }
    } catch (err) {
      if (err instanceof OfferFieldError) throw new OperationError('invalid_input', err.message)
      throw err
    }
  }

  /** The caller's live offer; the default offer is made on demand like GetUserOffers does. */
  const ownOffer = async (userId: string, identifier: string, offerId: string): Promise<OfferRow> => {
    const row = offerId === identifier ? await offers.ensureDefault(userId, identifier) : await offers.byId(offerId)
    if (!row || row.user_id !== userId || row.deleted_at !== null) throw new OperationError('not_found', 'offer not found')
    return row
  }

  return {
    AddUserOffer: async (input, ctx) => {
      const row = await offers.add(ctx.caller.userId, fieldsOf(input))
      return { offer_id: row.offer_id }
    },

    GetUserOffer: async ({ offer_id }, ctx) => {
      const row = await ownOffer(ctx.caller.userId, ctx.caller.appUserId, offer_id)
      return offerConfig(row, ctx.caller.appUserId, await appPubkey(ctx.caller.appId), relayUrl())
    },

    GetUserOffers: async (_input, ctx) => {
      const { userId, appUserId, appId } = ctx.caller
      await offers.ensureDefault(userId, appUserId)
      const pubkey = await appPubkey(appId)
      const relay = relayUrl()
      return { offers: (await offers.ofUser(userId)).map(row => offerConfig(row, appUserId, pubkey, relay)) }
    },

    UpdateUserOffer: async (input, ctx) => {
      const row = await ownOffer(ctx.caller.userId, ctx.caller.appUserId, input.offer_id)
      const fields = fieldsOf(input)
      // The default offer is the user's "pay me any amount" pointer (in GetUserInfo): it stays that.
      if (row.offer_id === ctx.caller.appUserId && (fields.priceSats !== 0 || fields.payerData.length > 0)) {
        throw new OperationError('invalid_input', 'the default offer takes any amount and asks for no payer data')
      }
      if (!(await offers.update(row.offer_id, fields))) throw new OperationError('not_found', 'offer not found')
      return {}
    },

    DeleteUserOffer: async ({ offer_id }, ctx) => {
      const row = await ownOffer(ctx.caller.userId, ctx.caller.appUserId, offer_id)
      await offers.remove(row.offer_id)
      return {}
    },

    GetUserOfferInvoices: async ({ offer_id, include_unpaid }, ctx) => {
      const row = await offers.byId(offer_id)
      // Deleted offers keep their history.
      const own = row ? row.user_id === ctx.caller.userId : offer_id === ctx.caller.appUserId
      if (!own) throw new OperationError('not_found', 'offer not found')
      return {
        invoices: (await wallet.offerInvoices(ctx.caller.userId, offer_id, include_unpaid)).map(invoice => ({
          invoice: invoice.paymentRequest,
          offer_id: invoice.offerId,
          paid_at_unix: invoice.paidAt === null ? 0 : unixSeconds(invoice.paidAt),
          amount: invoice.paidMsat === null ? 0 : msatAsSats(invoice.paidMsat),
          data: invoice.payerData,
        })),
      }
    },
  }
}

export interface OffersPartDeps {
  offers: OfferStore
  sql: SqlStore
  wallet: Wallet
  node: Pick<LightningNode, 'getBalances'>
  events$: Observable<DomainEvent>
  relayUrl(): string
  allowLoopbackCallbacks: boolean
  zapRelayRefusal(url: string): string | undefined
  now(): number
  log: Logger
}

/** Kind 21001 and the offer operations; receipts follow paid invoices from construction on. */
export function createOffersPart(deps: OffersPartDeps, outbox: () => ClinkSender | undefined): ClinkPart {
  const receipts = receiptBook({ store: receiptStore(deps.sql), events$: deps.events$, wallet: deps.wallet, outbox, now: deps.now, log: deps.log })
  receipts.start()
  const requests = offerRequests({
    offers: deps.offers, receipts, wallet: deps.wallet, node: deps.node, zapRelayRefusal: deps.zapRelayRefusal, log: deps.log,
  })
  return {
    handlers: { ...offerHandlers(deps), ClinkOfferRequest: requestHandler(clinkOfferKind, request => requests.answer(request)) },
    ready: () => receipts.flush(),
    stop: () => receipts.stop(),
  }
}
