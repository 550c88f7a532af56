// The NIP-47 methods, each a function of (connection, params) → result, throwing NwcError with one of the spec's
// error codes. Money moves only through the wallet's door (payInvoiceFor, createInvoiceFor): the same fees, checks,
// ledger and domain events as PayInvoice and NewInvoice. An invoice's hash and amount are read with
// light-bolt11-decoder (no signature check: the wallet's payer checks the invoice), not with `bolt11`, which only the
// embedded node needs, to encode and sign its invoices, and which loads bitcoinjs-lib and a second secp256k1.
import { decode as decodeBolt11 } from 'light-bolt11-decoder'
import type { Logger } from 'pino'
import { isOperationError, type Clock, type InputOf, type OutputOf } from '../bus/index.js'
import type { CreatedInvoice, InvoiceForWallet, SpendLimit, WalletPayment } from '../wallet/index.js'
import type { NwcConnectionStore, ConnectionRow } from './connection-store.js'
import type { NwcTransaction, TransactionQuery, WalletHistory, WalletTransactionReader } from './transactions.js'
import { NwcError, nip47CodeOf, type NwcErrorCode } from './nip47-errors.js'

export { NwcError, type NwcErrorCode }

export const nwcMethods = [
  'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions', 'get_balance', 'get_info',
] as const
export type NwcMethodName = (typeof nwcMethods)[number]
export const isNwcMethod = (name: string): name is NwcMethodName => (nwcMethods as readonly string[]).includes(name)

export const nwcNotificationTypes = ['payment_received', 'payment_sent'] as const

/** What the methods need of the wallet: its door functions, nothing else. */
export interface NwcWallet extends WalletHistory {
  createInvoiceFor(walletId: string, request: InvoiceForWallet): Promise<CreatedInvoice>
  payInvoiceFor(walletId: string, paymentRequest: string, opts?: { spendLimit?: SpendLimit }): Promise<WalletPayment & { feeMsat: number }>
  paymentByHash(paymentHash: string): Promise<WalletPayment | undefined>
}

export interface NodeFacts {
  getInfo(): Promise<{ alias: string; pubkey: string; network: string; blockHeight: number }>
}

export interface MethodDeps {
  wallet: NwcWallet
  node: NodeFacts
  store: NwcConnectionStore
  transactions: WalletTransactionReader
  clock: Clock
  log: Logger
}

/**
 * The request being served: which connection, the event id (the budget reservation's key), and its params as the
 * catalogue typed them (a field of the wrong type never gets here: the dispatcher refused it, naming the field).
 */
export interface MethodCall<P = unknown> {
  connection: ConnectionRow
  requestId: string
  params: P
}

/** Each NIP-47 method as the operation that serves it: its typed params, its answer. */
export interface NwcMethods {
  get_info(call: MethodCall): Promise<OutputOf<'NwcGetInfo'>>
  get_balance(call: MethodCall): Promise<OutputOf<'NwcGetBalance'>>
  make_invoice(call: MethodCall<InputOf<'NwcMakeInvoice'>>): Promise<OutputOf<'NwcMakeInvoice'>>
  lookup_invoice(call: MethodCall<InputOf<'NwcLookupInvoice'>>): Promise<OutputOf<'NwcLookupInvoice'>>
  list_transactions(call: MethodCall<InputOf<'NwcListTransactions'>>): Promise<OutputOf<'NwcListTransactions'>>
  pay_invoice(call: MethodCall<InputOf<'NwcPayInvoice'>>): Promise<OutputOf<'NwcPayInvoice'>>
}

export function methodTable(deps: MethodDeps): NwcMethods {
  const { wallet, store, transactions, clock } = deps
  // After the wallet has answered, the budget's books must not change what the app hears: a paid invoice answered
  // as an error invites a second attempt. A spend left `reserved` keeps counting its invoice amount (the safe side).
  const bookkeeping = async (write: () => Promise<void>, requestId: string) => {
    try {
      await write()
    } catch (err) {
      deps.log.error({ err, requestId }, 'NWC budget spend not updated after the payment')
    }
  }
  return {
    get_info: async ({ connection }) => {
      const info = await deps.node.getInfo()
      return {
        alias: info.alias,
        color: '#000000', // the node API has no colour; NIP-47 requires the field
        pubkey: info.pubkey,
        network: info.network,
        block_height: info.blockHeight,
        block_hash: '', // not exposed by the node interface
        methods: methodsOf(connection),
        notifications: [...nwcNotificationTypes],
      }
    },

    get_balance: async ({ connection }) => ({ balance: await transactions.balanceMsat(connection.user_id) }),

    make_invoice: async ({ connection, params }) => {
      const { amount, description, description_hash: descriptionHash, expiry } = params
      const created = await walletCall(() =>
        wallet.createInvoiceFor(connection.user_id, {
          amountMsat: amount,
          memo: description ?? '',
          ...(descriptionHash !== undefined ? { descriptionHash: descriptionHash.toLowerCase() } : {}),
          ...(expiry !== undefined ? { expirySeconds: expiry } : {}),
        }),
      )
      return (await transactions.byPaymentHash(connection.user_id, created.paymentHash, clock.now())) ?? missing()
    },

    lookup_invoice: async ({ connection, params }) => {
      const { payment_hash: hash, invoice } = params
      if (hash === undefined && invoice === undefined) throw new NwcError('OTHER', 'payment_hash or invoice is required')
      const paymentHash = hash?.toLowerCase() ?? decodeInvoice(invoice!).paymentHash
      return (await transactions.byPaymentHash(connection.user_id, paymentHash, clock.now())) ?? missing()
    },

    list_transactions: async ({ connection, params }) => {
      const { from, until, limit, offset, unpaid, type } = params
      const query: TransactionQuery = {
        ...(from !== undefined ? { from } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(offset !== undefined ? { offset } : {}),
        ...(unpaid === true ? { unpaid: true } : {}),
        ...(type !== undefined ? { type } : {}),
      }
      return { transactions: await transactions.list(connection.user_id, query, clock.now()) }
    },

    pay_invoice: async ({ connection, requestId, params }) => {
      const { invoice } = params
      const decoded = decodeInvoice(invoice)
      if (decoded.amountMsat === undefined) {
        throw new NwcError('NOT_IMPLEMENTED', 'invoices without an amount cannot be paid by this wallet')
      }
      if (params.amount !== undefined && params.amount !== decoded.amountMsat) {
        throw new NwcError('OTHER', 'amount differs from the amount of the invoice')
      }
      const reservation = await store.reserve(connection.id, {
        requestId,
        paymentHash: decoded.paymentHash,
        amountMsat: decoded.amountMsat,
        at: clock.now(),
      })
      if (!reservation.ok) {
        throw new NwcError(
          'QUOTA_EXCEEDED',
          `budget exceeded: ${reservation.spentMsat} of ${reservation.budgetMsat} msat spent in this window, ${decoded.amountMsat} msat asked`,
        )
      }
      let paid: WalletPayment & { feeMsat: number }
      try {
        // The connection must still be live in the transaction that debits the wallet: a revocation acknowledged
        // before that debit refuses the payment, however long ago the request was let in.
        const spendLimit: SpendLimit = tx => store.assertLive(tx, connection.id, clock.now())
        paid = await walletCall(() => wallet.payInvoiceFor(connection.user_id, invoice, { spendLimit }), 'PAYMENT_FAILED')
      } catch (err) {
        // The reservation stays only while the wallet holds this connection's money for the invoice: a payment of
        // this wallet still pending (outcome unknown) keeps counting, anything else moved nothing.
        const payment = await wallet.paymentByHash(decoded.paymentHash)
        const heldByUs = payment?.walletId === connection.user_id && payment.status === 'pending'
        if (!heldByUs) await bookkeeping(() => store.releaseSpend(requestId), requestId)
        throw err
      }
      const feesPaid = paid.serviceFeeMsat + (paid.routingFeeMsat ?? 0)
      await bookkeeping(() => store.settleSpend(requestId, paid.amountMsat + feesPaid), requestId)
      return { preimage: paid.preimage ?? '', fees_paid: feesPaid }
    },
  }
}

export function methodsOf(connection: ConnectionRow): NwcMethodName[] {
  return connection.methods.split(' ').filter(isNwcMethod)
}

/** Wallet refusals become NIP-47 codes; anything that is not an OperationError is left for the caller to log. */
async function walletCall<T>(fn: () => Promise<T>, upstreamCode: NwcErrorCode = 'OTHER'): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof NwcError) throw err
    if (isOperationError(err)) throw new NwcError(nip47CodeOf(err, upstreamCode), err.message)
    throw err
  }
}

function decodeInvoice(text: string): { paymentHash: string; amountMsat: number | undefined } {
  let sections
  try {
    sections = decodeBolt11(text.trim()).sections
  } catch {
    throw new NwcError('OTHER', 'invoice is not a valid BOLT11 payment request')
  }
  const hash = sections.find(section => section.name === 'payment_hash')
  const amount = sections.find(section => section.name === 'amount')
  if (!hash || typeof hash.value !== 'string') throw new NwcError('OTHER', 'invoice has no payment hash')
  const amountMsat = amount && 'value' in amount ? Number(amount.value) : undefined
  if (amountMsat !== undefined && !Number.isSafeInteger(amountMsat)) throw new NwcError('OTHER', 'invoice amount is too large')
  return { paymentHash: hash.value, amountMsat: amountMsat || undefined }
}

function missing(): never {
  throw new NwcError('NOT_FOUND', 'no invoice or payment with this hash in this wallet')
}




export type { NwcTransaction }
