// Nostr Wallet Connect (NIP-47, issue 13): the user's own connections. The NWC requests themselves (kind 23194)
// are not catalogue operations: they arrive on each connection's service key and are served by src/nwc/, which
// moves money through the wallet's door like every other path.
import { operation } from '../operation.js'
import { Empty } from '../messages/common.js'
import {
  CreatedNwcConnection, CreateNwcConnectionRequest, NwcConnection, NwcConnectionId, NwcConnections,
  UpdateNwcConnectionRequest,
} from '../messages/nwc.js'

export const nwcOperations = [
  operation({
    name: 'CreateNwcConnection', area: 'nwc', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/nwc/create' },
    input: CreateNwcConnectionRequest, output: CreatedNwcConnection,
    summary: 'Creates a Nostr Wallet Connect connection (own service key, allowed methods, optional budget and expiry); its `nostr+walletconnect://` URI carries the client secret and is returned only here.',
  }),
  operation({
    name: 'ListNwcConnections', area: 'nwc', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/nwc/list', body: 'none' },
    input: Empty, output: NwcConnections,
    summary: "The user's NWC connections, newest first, with what each spent in its budget window (never the secret).",
  }),
  operation({
    name: 'UpdateNwcConnection', area: 'nwc', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/nwc/update' },
    input: UpdateNwcConnectionRequest, output: NwcConnection,
    summary: 'Renames a live NWC connection or changes its methods, budget (`remove_budget` drops it) or expiry (0 clears it).',
  }),
  operation({
    name: 'RevokeNwcConnection', area: 'nwc', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/nwc/revoke' },
    input: NwcConnectionId, output: Empty,
    summary: 'Revokes an NWC connection for good: its requests are answered UNAUTHORIZED from then on.',
  }),
]
