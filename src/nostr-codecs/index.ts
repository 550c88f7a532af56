// Nostr wire shapes that domain rooms read and write but that belong to no one room: CLINK pointers
// (noffer/ndebit/nmanage) and NIP-57 zap requests. Pure functions over strings and events, beneath the domains.
export {
  encodeNoffer, decodeNoffer, encodeNdebit, decodeNdebit, encodeNmanage, decodeNmanage,
  type OfferPointer, type AccessPointer, type OfferPriceType,
} from './pointers.js'
export { validateZapRequest, type ZapRequest } from './zap-request.js'
