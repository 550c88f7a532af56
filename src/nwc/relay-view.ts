// What the room's kind-23194 codec (nostr-codec.ts) reads of its connections (one relay pool, one claim store and one
// dispatcher for every kind: docs/architecture.md, "The Nostr pipeline"): the service keys to subscribe to and sign
// with, the info of each live connection, and the notifications a payment causes. Plain data; the codec encrypts, and
// the transport signs and publishes.
import { hexToBytes } from '@noble/hashes/utils.js'
import { type Clock, type DomainEvent } from '../bus/index.js'
import type { NwcDirectory } from '../auth/index.js'
import { methodsOf, nwcNotificationTypes } from './methods.js'
import type { ConnectionRow } from './connection-store.js'
import type { ConnectionDirectory } from './connection-directory.js'
import type { WalletTransactionReader } from './transactions.js'

export interface NwcAnnouncement {
  servicePubkey: string
  serviceSecret: Uint8Array
  methods: readonly string[]
}

export interface NwcNotice {
  servicePubkey: string
  serviceSecret: Uint8Array
  clientPubkey: string
  /** `{notification_type, notification}` as NIP-47 sends it. */
  notice: Record<string, unknown>
}

export interface NwcRelayView extends NwcDirectory {
  /** Every connection's service key: revoked ones too, so that their apps hear UNAUTHORIZED rather than silence. */
  servicePubkeys(): string[]
  serviceSecret(servicePubkey: string): Uint8Array | undefined
  notificationTypes: readonly string[]
  /** The info (kind 13194) of a connection, or undefined once it is revoked or expired. */
  announcement(servicePubkey: string): NwcAnnouncement | undefined
  /** The info of every live connection (published at start and on the relays of a SIGHUP). */
  announcements(): NwcAnnouncement[]
  /** What a paid invoice or a sent payment tells the wallet's live connections. */
  noticesFor(event: DomainEvent): Promise<NwcNotice[]>
}

export function nwcRelayView(store: ConnectionDirectory, transactions: WalletTransactionReader, clock: Clock): NwcRelayView {
  const directory = nwcDirectory(store)
  const live = (c: ConnectionRow) => c.revoked_at === null && (c.expires_at === null || c.expires_at > clock.now())
  const announce = (c: ConnectionRow): NwcAnnouncement => ({
    servicePubkey: c.service_pubkey,
    serviceSecret: hexToBytes(c.service_secret),
    methods: methodsOf(c),
  })
  const notices = async (walletId: string, paymentHash: string, type: (typeof nwcNotificationTypes)[number]): Promise<NwcNotice[]> => {
    const connections = store.liveOfUser(walletId, clock.now())
    if (connections.length === 0) return []
    const transaction = await transactions.byPaymentHash(walletId, paymentHash, clock.now())
    if (!transaction || transaction.type !== (type === 'payment_received' ? 'incoming' : 'outgoing')) return []
    const notice = { notification_type: type, notification: transaction }
    return connections.map(c => ({
      servicePubkey: c.service_pubkey,
      serviceSecret: hexToBytes(c.service_secret),
      clientPubkey: c.client_pubkey,
      notice,
    }))
  }
  return {
    ...directory,
    servicePubkeys: () => store.all().map(c => c.service_pubkey),
    serviceSecret(servicePubkey) {
      const connection = store.byServicePubkey(servicePubkey)
      return connection ? hexToBytes(connection.service_secret) : undefined
    },
    notificationTypes: nwcNotificationTypes,
    announcement(servicePubkey) {
      const connection = store.byServicePubkey(servicePubkey)
      return connection && live(connection) ? announce(connection) : undefined
    },
    announcements: () => store.all().filter(live).map(announce),
    async noticesFor(event) {
      if (event.type === 'invoice.paid') return notices(event.walletId, event.paymentHash, 'payment_received')
      if (event.type === 'payment.settled') return notices(event.walletId, event.paymentHash, 'payment_sent')
      return []
    },
  }
}

/** Authentication's view of the connections (caller kind nwcConnection). */
export function nwcDirectory(store: ConnectionDirectory): NwcDirectory {
  return {
    connectionByServiceKey(servicePubkey) {
      const c = store.byServicePubkey(servicePubkey)
      if (!c) return undefined
      return { id: c.id, userId: c.user_id, clientPubkey: c.client_pubkey, revoked: c.revoked_at !== null, expiresAt: c.expires_at, methods: methodsOf(c) }
    },
  }
}
