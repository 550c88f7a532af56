// Kinds 21001–21003 (CLINK offers, debits, manage: reference/pub-protocol.md §5) arrive on the same subscription
// as the RPC kind. Serving them is another issue (the CLINK room); until it lands, this is where they go: each is
// logged and dropped. It answers nothing on purpose — a made-up answer would be worse than none for a payer.
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import type { AppKey } from './app-keys.js'

export const clinkOfferKind = 21001
export const clinkDebitKind = 21002
export const clinkManageKind = 21003
export const clinkKinds = [clinkOfferKind, clinkDebitKind, clinkManageKind] as const

/** Not served yet: logs a CLINK request (kind, author, addressed app) and drops it. */
export function dropUnservedClinkRequest(event: Event, app: AppKey, log: Logger): void {
  log.info({ kind: event.kind, id: event.id, from: event.pubkey, app: app.appId }, 'CLINK request dropped: CLINK is not served yet')
}
