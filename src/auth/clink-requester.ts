// CLINK requester (kinds 21001–21003): anyone with a key may ask for an invoice, a debit or a management
// action; the event's verified author and the addressed app are who the room answers and whose grants it checks.
import { OperationError, type Caller } from '../bus/index.js'
import type { Credentials } from './credentials.js'

export function authenticateClinkRequester(creds: Credentials): Extract<Caller, { kind: 'clinkRequester' }> {
  if (!creds.nostr) throw new OperationError('forbidden', 'CLINK requests are served only over Nostr kinds 21001–21003')
  return { kind: 'clinkRequester', pubkey: creds.nostr.pubkey, appId: creds.nostr.appId }
}
