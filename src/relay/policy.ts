// What the relay takes from strangers when it is not open (`[nostr] relay_open_writes = false`, the default): only
// the traffic of the daemon it belongs to. A stranger may send the request kinds, addressed (`p` tag) to a key the
// daemon serves; an event signed by a served key (the daemon's own, arriving by another way) of a kind the daemon
// publishes is taken too. Everything else gets `blocked:`. The daemon's own connections (server.ts) are not asked.
//
// Which keys are served is learnt from the daemon itself: the keys named in the `#p` of its own connections'
// subscriptions. Those filters are exactly what it answers (every app key, every NWC service key), and the daemon
// renews them the moment it adds a key (a new app, a new NWC connection), before it hands that key to anyone.
// So no second list has to be kept in step: the relay takes requests for exactly the keys someone listens for.
import type { NostrEvent } from './nostr-event.js'
import { appDataKind, deletionKind, metadataKind, nwcAnswerKinds, nwcInfoKind, requestKinds, zapReceiptKind } from '../nostr-kinds/index.js'

/**
 * Kinds the daemon publishes: its RPC and CLINK replies (the request kinds), NWC responses, notifications and info,
 * zap receipts, the service beacons, metadata, and deletions of what it published.
 */
export const publishedKinds: ReadonlySet<number> = new Set([
  ...requestKinds, ...nwcAnswerKinds, nwcInfoKind, zapReceiptKind, appDataKind, metadataKind, deletionKind,
])

export interface ServedKeys {
  has(pubkey: string): boolean
}

/** Why a stranger's event is refused, or undefined when it may be stored. */
export function writeRefusal(event: NostrEvent, served: ServedKeys): string | undefined {
  if (served.has(event.pubkey)) {
    return publishedKinds.has(event.kind) ? undefined : `blocked: kind ${event.kind} is not one this relay carries`
  }
  if (!requestKinds.has(event.kind)) {
    return `blocked: this relay carries only requests to the wallets it serves; kind ${event.kind} is not one`
  }
  const addressed = event.tags.some(tag => tag[0] === 'p' && typeof tag[1] === 'string' && served.has(tag[1]))
  return addressed ? undefined : 'blocked: this relay carries only requests addressed to a key it serves'
}
