// Nostr wire shapes that rooms on several layers read and write but that belong to no one room: CLINK pointers
// (noffer/ndebit/nmanage), NIP-57 zap requests, the Pub RPC wire of kind 21000 (its nip44v1 cipher and reply shards),
// which the daemon's transport and the CLI's relay client both speak, and the contract between the relay transport
// and the rooms that serve a request kind (request-codec.ts). Beneath the domains.
export {
  encodeNoffer, decodeNoffer, encodeNdebit, decodeNdebit, encodeNmanage, decodeNmanage, encodeAccountPointers,
  type OfferPointer, type AccessPointer, type OfferPriceType,
} from './pointers.js'
export { validateZapRequest, receiptCandidates, receiptRelays, type ZapRequest } from './zap-request.js'
export { CipherError, conversationKeyV1, encryptV1, decryptV1, strictBase64 } from './nip44v1.js'
export { conversationKeyV2, encryptV2, decryptV2 } from './nip44v2.js'
export {
  schemeOf, conversationKey, encryptWith, decryptWith, decryptPayload, encryptNip04, decryptNip04,
  type CipherScheme, type KeyScheme,
} from './cipher.js'
export { shardPlaintexts, type Shard } from './shards.js'

export { conversationKeys } from './conversation-keys.js'
export {
  noReply,
  type Addressee, type AnyNostrCodec, type AppKey, type AppKeyring, type CodecCall, type CodecParts, type ConversationKeys,
  type Decoded, type Inbound, type NostrCodec, type SendEvent, type ServeKinds, type ServedKinds, type StoredReply,
} from './request-codec.js'
