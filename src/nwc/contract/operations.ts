// Nostr Wallet Connect (NIP-47): the user's own connections, and the NIP-47 methods an NWC app calls with kind 23194
// on a connection's service key. Those arrive through the relay transport's 23194 codec and the dispatcher like
// every request; the caller is the connection (auth kind nwcConnection).
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { nwcRequestKind as nip47Kind } from '../../nostr-kinds/index.js'
import {
  CreateNwcConnectionRequest, CreatedNwcConnection, Nip47Balance, Nip47Info, Nip47ListTransactions,
  Nip47LookupInvoice, Nip47MakeInvoice, Nip47Paid, Nip47PayInvoice, Nip47Transaction, Nip47Transactions,
  NwcConnection, NwcConnectionId, NwcConnections, UpdateNwcConnectionRequest,
} from './messages/nwc.js'

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
  operation({
    name: 'NwcPayInvoice', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'pay_invoice' },
    input: Nip47PayInvoice, output: Nip47Paid,
    summary: "NIP-47 pay_invoice (Nostr kind 23194 only): pays a BOLT11 invoice from the connection's wallet within its budget; `amount` (msat), when given, must equal the invoice's.",
  }),
  operation({
    name: 'NwcMakeInvoice', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'make_invoice' },
    input: Nip47MakeInvoice, output: Nip47Transaction,
    summary: "NIP-47 make_invoice (Nostr kind 23194 only): an invoice to the connection's wallet for `amount` msat.",
  }),
  operation({
    name: 'NwcLookupInvoice', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'lookup_invoice' }, repeatable: true,
    input: Nip47LookupInvoice, output: Nip47Transaction,
    summary: "NIP-47 lookup_invoice (Nostr kind 23194 only): one invoice or payment of the connection's wallet by payment hash or invoice.",
  }),
  operation({
    name: 'NwcListTransactions', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'list_transactions' }, repeatable: true,
    input: Nip47ListTransactions, output: Nip47Transactions,
    summary: "NIP-47 list_transactions (Nostr kind 23194 only): the connection's wallet history, newest first.",
  }),
  operation({
    name: 'NwcGetBalance', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'get_balance' }, repeatable: true,
    input: Empty, output: Nip47Balance,
    summary: "NIP-47 get_balance (Nostr kind 23194 only): the connection's wallet balance in msat.",
  }),
  operation({
    name: 'NwcGetInfo', area: 'nwc', auth: 'nwcConnection', dialect: 'pub', nostrCodec: { kind: nip47Kind, request: 'get_info' }, repeatable: true,
    input: Empty, output: Nip47Info,
    summary: 'NIP-47 get_info (Nostr kind 23194 only): the node, and the methods and notifications the connection may use.',
  }),
]
