// NWC connection (NIP-47 over kind 23194): the request's author must be the client key of the connection
// whose service key it addressed, the connection neither revoked nor expired, and allowed the method. Refusals keep
// the NWC room's words; the 23194 codec turns `unauthenticated` into UNAUTHORIZED and `forbidden` into RESTRICTED.
import type { CatalogueEntry } from '../../schema/catalogue.js'
import { OperationError, type Caller } from '../bus/index.js'
import type { Credentials } from './credentials.js'

/** What authentication needs to know of a connection; the NWC room implements it, auth never reads its tables. */
export interface NwcConnectionView {
  id: string
  userId: string
  clientPubkey: string
  revoked: boolean
  /** Unix ms, or null for never. */
  expiresAt: number | null
  /** The NIP-47 methods it may call. */
  methods: readonly string[]
}

export interface NwcDirectory {
  connectionByServiceKey(servicePubkey: string): NwcConnectionView | undefined
}

/** The connection a NIP-47 request's author may speak for: its client key, neither revoked nor expired. */
export function nwcConnectionOf(creds: Credentials, deps: { nwc?: NwcDirectory; now(): number }): NwcConnectionView {
  const sent = creds.nwc
  if (!sent) throw new OperationError('forbidden', 'NIP-47 methods are served only over Nostr kind 23194')
  const connection = deps.nwc?.connectionByServiceKey(sent.servicePubkey)
  if (!connection) throw new OperationError('unauthenticated', 'no NWC connection has this service key')
  if (sent.pubkey !== connection.clientPubkey) throw new OperationError('unauthenticated', 'this key is not the client of the connection')
  if (connection.revoked) throw new OperationError('unauthenticated', 'the connection was revoked')
  if (connection.expiresAt !== null && connection.expiresAt <= deps.now()) throw new OperationError('unauthenticated', 'the connection expired')
  return connection
}

export function authenticateNwc(
  entry: CatalogueEntry,
  creds: Credentials,
  deps: { nwc?: NwcDirectory; now(): number },
): Extract<Caller, { kind: 'nwc' }> {
  const connection = nwcConnectionOf(creds, deps)
  const method = (entry as { nostrCodec?: { request: string } }).nostrCodec?.request ?? entry.name
  if (!connection.methods.includes(method)) throw new OperationError('forbidden', `the connection may not call ${method}`)
  return { kind: 'nwc', connectionId: connection.id, userId: connection.userId }
}
