// CLINK offers and products. AddUserOffer/UpdateUserOffer take the smaller upstream request shapes
// (OfferCreateRequest/OfferUpdateRequest), not OfferConfig. Fields: upstream's structs.proto.
import { bool, int, list, map, message, optional, text } from '../dsl.js'

export const OfferConfig = message('OfferConfig', {
  offer_id: text(),
  label: text(),
  price_sats: int(),
  callback_url: text(),
  payer_data: list(text()),
  noffer: text(), // bech32 noffer for this offer
  default_offer: bool(), // true when offer_id == app user identifier
  token: text(),
  rejectUnauthorized: bool(),
  createdAtUnix: int(), // actually MILLISECONDS (Date.getTime())
  updatedAtUnix: int(), // actually MILLISECONDS
  blind: optional(bool()),
})

export const OfferCreateRequest = message('OfferCreateRequest', {
  label: text(), // non-empty
  price_sats: int(), // 0 = spontaneous (payer picks amount), >0 fixed
  callback_url: text(),
  payer_data: list(text()), // list of keys the payer must supply (string values)
  blind: optional(bool()),
  token: text(), // Bearer token for the offer paid-callback
  rejectUnauthorized: bool(),
})

export const OfferUpdateRequest = message('OfferUpdateRequest', {
  offer_id: text(),
  label: text(),
  price_sats: int(),
  callback_url: text(),
  payer_data: list(text()),
  blind: optional(bool()),
  token: text(),
  rejectUnauthorized: bool(),
})

export const OfferId = message('OfferId', {
  offer_id: text(),
})

export const UserOffers = message('UserOffers', {
  offers: list(OfferConfig),
})

export const GetUserOfferInvoicesReq = message('GetUserOfferInvoicesReq', {
  offer_id: text(),
  include_unpaid: bool(),
})

export const OfferInvoice = message('OfferInvoice', {
  invoice: text(),
  offer_id: text(),
  paid_at_unix: int(),
  amount: int(),
  data: map(text()), // payer_data captured for the invoice
})

export const OfferInvoices = message('OfferInvoices', {
  invoices: list(OfferInvoice),
})

export const AddProductRequest = message('AddProductRequest', {
  name: text(),
  price_sats: int(),
})

export const Product = message('Product', {
  id: text(), // uuid
  name: text(),
  price_sats: int(),
  noffer: text(), // noffer with pubkey = owner user_id (upstream quirk) and offer "p:<uuid>", fixed price
})

export const GetProductBuyLinkResponse = message('GetProductBuyLinkResponse', {
  link: text(),
})

/** NewProductInvoice `?id`: the product to invoice (a GET route, so the id arrives as a query string). */
export const NewProductInvoiceRequest = message('NewProductInvoiceRequest', {
  id: text(),
})
