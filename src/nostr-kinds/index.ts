// Every Nostr kind relaypay reads or writes, in one place: the catalogue (which kind an operation arrives on), the
// codecs, the relay's write and read policies, the beacons and the zap receipts all name them from here. A ground
// room: numbers and sets only, importable from every layer.

/** Profile metadata (NIP-01). */
export const metadataKind = 0
/** Deletion of one's own events (NIP-09). */
export const deletionKind = 5
/** Zap receipt (NIP-57). */
export const zapReceiptKind = 9735
/** A NWC service's info event: the methods it answers (NIP-47). */
export const nwcInfoKind = 13194
/** Lightning.Pub RPC: requests, replies, pushes and reply shards (nip44v1 or NIP-44 v2). */
export const pubRpcKind = 21000
/** CLINK offers: a payer asks an offer's invoice; receipts follow. */
export const clinkOfferKind = 21001
/** CLINK debits: a service asks to be paid under the user's grant. */
export const clinkDebitKind = 21002
/** CLINK manage: a key manages the user's offers. */
export const clinkManageKind = 21003
/** CLINK enroll: a key opens its account and gets its three pointers in one request (upstream's next version). */
export const clinkEnrollKind = 21004
/** A client's answer to a relay's challenge (NIP-42). */
export const relayAuthKind = 22242
/** NWC requests (NIP-47). */
export const nwcRequestKind = 23194
/** NWC responses (NIP-47). */
export const nwcResponseKind = 23195
/** NWC notifications, NIP-04 encrypted (the legacy kind) and NIP-44 encrypted (NIP-47). */
export const nwcNotificationKindNip04 = 23196
export const nwcNotificationKindNip44 = 23197
/** Application data (NIP-78, addressable): the service beacons, `d` = "Lightning.Pub" and "clink-node". */
export const appDataKind = 30078

export const clinkKinds = [clinkOfferKind, clinkDebitKind, clinkManageKind, clinkEnrollKind] as const
export type ClinkKind = (typeof clinkKinds)[number]

/** Kinds a stranger sends to the daemon: Pub RPC, CLINK (offers, debits, manage, enroll), NWC requests. */
export const requestKinds: ReadonlySet<number> = new Set([pubRpcKind, ...clinkKinds, nwcRequestKind])
/** What NWC sends back: responses and notifications. */
export const nwcAnswerKinds = [nwcResponseKind, nwcNotificationKindNip04, nwcNotificationKindNip44] as const
