// Nostr Wallet Connect (NIP-47) connections a user manages: each one is a service key pair, the client key that
// may use it, the methods it may call, an optional spending budget and an expiry. Amounts on this wire are sats
// (the pub dialect's unit); NIP-47 itself speaks msat, which src/nwc/ converts at its own edge.
import { z } from '../../../vendor/zod.js'
import { bool, enumOf, int, list, message, optional, text } from '../../../../schema/dsl.js'
import { IntervalType } from '../../../../schema/messages/debits.js'

/** The NIP-47 methods a connection may be allowed; `notifications` are sent to every live connection. */
export const NwcMethod = enumOf('NwcMethod', [
  'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions', 'get_balance', 'get_info',
])

/** At most `amount_sats` (payments plus their fees) leave the wallet through the connection per rolling interval. */
export const NwcBudget = message('NwcBudget', {
  amount_sats: int(),
  interval: IntervalType, // DAY = 86400 s, WEEK = 7 days, MONTH = 30 days, as CLINK frequency rules
})

export const NwcConnection = message('NwcConnection', {
  connection_id: text(),
  name: text(),
  service_pubkey: text(), // hex: the key the NWC app addresses its requests to
  client_pubkey: text(), // hex: the only key whose requests are answered
  methods: list(NwcMethod),
  budget: optional(NwcBudget),
  spent_sats: int(), // within the budget's current window (all time when there is no budget); fees included
  expires_at_unix: int(), // 0: never
  created_at_unix: int(),
  revoked: bool(),
})

export const CreateNwcConnectionRequest = message('CreateNwcConnectionRequest', {
  name: text(),
  methods: optional(list(NwcMethod)), // absent: every method
  budget: optional(NwcBudget),
  expires_at_unix: optional(int()),
})

export const CreatedNwcConnection = message('CreatedNwcConnection', {
  connection: NwcConnection,
  // nostr+walletconnect://<service pubkey>?relay=…&secret=<client secret>: shown once, never stored
  connection_uri: text(),
})

export const NwcConnections = message('NwcConnections', {
  connections: list(NwcConnection),
})

export const UpdateNwcConnectionRequest = message('UpdateNwcConnectionRequest', {
  connection_id: text(),
  name: optional(text()),
  methods: optional(list(NwcMethod)),
  budget: optional(NwcBudget),
  remove_budget: optional(bool()),
  expires_at_unix: optional(int()), // 0 clears the expiry
})

export const NwcConnectionId = message('NwcConnectionId', {
  connection_id: text(),
})

// The NIP-47 requests themselves (kind 23194): `params` as the client sends them and `result` as NIP-47 names it,
// amounts in msat. Each field is typed here like any operation's input, with a refusal in words a wallet app can show
// its user: the dispatcher refuses a bad field before the NWC room runs, and the room's codec answers it as NIP-47's
// OTHER, naming the field (`amount: must be a positive whole number of msat`). Fields NIP-47 adds later are ignored.
const msat = () => z.int({ error: 'must be a positive whole number of msat' }).positive({ error: 'must be a positive whole number of msat' })
const count = () => z.int({ error: 'must be a whole number, 0 or more' }).min(0, { error: 'must be a whole number, 0 or more' })
const unixTime = () => z.int({ error: 'must be a unix time in seconds' }).min(0, { error: 'must be a unix time in seconds' })
const paymentRequest = () => z.string({ error: 'must be a BOLT11 payment request' }).trim().min(1, { error: 'must be a BOLT11 payment request' })

export const Nip47PayInvoice = message('Nip47PayInvoice', { invoice: paymentRequest(), amount: optional(msat()) })
export const Nip47MakeInvoice = message('Nip47MakeInvoice', {
  amount: msat(),
  description: optional(z.string({ error: 'must be text' })),
  description_hash: optional(z.string({ error: 'must be 32 bytes of hex' }).regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 32 bytes of hex' })),
  expiry: optional(z.int({ error: 'must be a positive whole number of seconds' }).positive({ error: 'must be a positive whole number of seconds' })),
})
export const Nip47LookupInvoice = message('Nip47LookupInvoice', {
  payment_hash: optional(z.string({ error: 'must be a payment hash in hex' })),
  invoice: optional(paymentRequest()),
})
export const Nip47ListTransactions = message('Nip47ListTransactions', {
  from: optional(unixTime()),
  until: optional(unixTime()),
  limit: optional(count()),
  offset: optional(count()),
  unpaid: optional(z.boolean({ error: 'must be true or false' })),
  type: optional(z.enum(['incoming', 'outgoing'], { error: 'must be "incoming" or "outgoing"' })),
})
export const Nip47Paid = message('Nip47Paid', { preimage: text(), fees_paid: int() })
export const Nip47Transaction = message('Nip47Transaction', {
  type: text(), state: text(), invoice: text(), description: text(), description_hash: optional(text()),
  preimage: optional(text()), payment_hash: text(), amount: int(), fees_paid: int(), created_at: int(),
  expires_at: optional(int()), settled_at: optional(int()),
})
export const Nip47Transactions = message('Nip47Transactions', { transactions: list(Nip47Transaction) })
export const Nip47Balance = message('Nip47Balance', { balance: int() })
export const Nip47Info = message('Nip47Info', {
  alias: text(), color: text(), pubkey: text(), network: text(), block_height: int(), block_hash: text(),
  methods: list(text()), notifications: list(text()),
})
