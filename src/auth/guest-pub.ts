// GuestWithPub: only over Nostr, where the event's pubkey and the addressed app are the context.
import { OperationError, type Caller } from '../bus/index.js'
import type { Credentials } from './credentials.js'

export function authenticateGuestPub(creds: Credentials): Extract<Caller, { kind: 'guestPub' }> {
  if (!creds.nostr) throw new OperationError('forbidden', 'Nostr only route')
  return { kind: 'guestPub', pub: creds.nostr.pubkey, appId: creds.nostr.appId }
}
